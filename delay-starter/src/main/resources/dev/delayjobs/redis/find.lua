--! include: _base36, _record, _claims, _delayed
-- find: reads one job and where it is (read-only).
-- KEYS[1] jobs: hash
-- KEYS[2] delayed: zset of marks (a grouped job waits in <delayed>:<g>, one of the default group in a
--   page <delayed>:\2<n>, found by the due time of its record: _delayed.lua)
-- KEYS[3] dead: zset
-- KEYS[4] errors: hash
-- KEYS[5] successors: hash
-- KEYS[6] claims: hash, id -> claim entry (see _claims.lua)
-- KEYS[7] groups: hash, id -> group (grouped jobs only)
-- ARGV[1] id
-- Returns {} if absent, else {record, 'DELAYED'|'READY'|'PREFETCHED'|'RUNNING'|'DEAD', last error or '',
-- successor (replace flag and record, see queue_successor in _successors.lua) or '', ar of its claim
-- entry in base 36 ('0' when it has none), group or '' (the default group)}. Cost: O(log N).
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return {} end
local state = 'READY'
local c = claim_of(redis.call('HGET', KEYS[6], ARGV[1]))
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then state = 'DEAD'
elseif delayed_score(KEYS[2], KEYS[7], ARGV[1], record_due(rec)) then state = 'DELAYED'
elseif c and c.hold == RUNNING then state = 'RUNNING'
elseif c and c.hold == PREFETCHED then state = 'PREFETCHED' end
return { rec, state, redis.call('HGET', KEYS[4], ARGV[1]) or '', redis.call('HGET', KEYS[5], ARGV[1]) or '',
         c and to36(flags_of(c)) or '0', redis.call('HGET', KEYS[7], ARGV[1]) or '' }
