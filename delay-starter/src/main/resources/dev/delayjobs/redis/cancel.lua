--! include: _memo, _record, _claims, _delayed
-- cancel: deletes a job that is still waiting (DELAYED or READY). A READY job's id may stay in
-- the ready list; claim drops it since its record is gone.
-- KEYS[1] jobs: hash
-- KEYS[2] delayed: zset of marks (a grouped job waits in <delayed>:<g>, one of the default group in a
--   page <delayed>:\2<n>, found by the due time of its record: _delayed.lua)
-- KEYS[3] dead: zset
-- KEYS[4] errors: hash
-- KEYS[5] memo: the request's memo bucket (hash; see replayed() in _memo.lua)
-- KEYS[6] successors: hash
-- KEYS[7] claims: hash, id -> claim entry (see _claims.lua): deleted with the job
-- KEYS[8] groups: hash, id -> group (grouped jobs only): deleted with the job
-- ARGV[1] id
-- ARGV[last] memo: the request's field in the memo bucket (_memo.lua)
-- A job's successor (a keyed publish that met it held, see _successors.lua) is cancelled with it, and
-- alone when the job is held: the held job runs on and is not followed.
-- Returns 1 if cancelled (the job, or the successor of a held one), 0 if absent, held by a consumer
-- (RUNNING or PREFETCHED) with no successor, or dead; a resent copy returns the first run's answer
-- (a cancel that succeeded is not reported as failed). Cost: O(log N).
local prior = replayed(KEYS[5])
if prior then return prior end
local successor = redis.call('HDEL', KEYS[6], ARGV[1])
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return remember(KEYS[5], successor) end
-- the record's due time finds the page a job of the default group waits in (_delayed.lua)
if not remove_delayed(KEYS[2], KEYS[8], ARGV[1], record_due(rec)) then
  local c = claim_of(redis.call('HGET', KEYS[7], ARGV[1]))
  if (c and c.hold ~= FREE) or redis.call('ZSCORE', KEYS[3], ARGV[1]) then return remember(KEYS[5], successor) end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[7], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[8], ARGV[1])
return remember(KEYS[5], 1)
