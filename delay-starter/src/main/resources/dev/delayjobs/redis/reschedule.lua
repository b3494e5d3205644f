--! include: _clock, _record, _claims, _wake, _groups, _delayed
-- reschedule: gives a waiting job (DELAYED or READY) a new due time; a DELAYED job made due goes to
-- its group's ready list (see _groups.lua).
-- KEYS[1] jobs: hash
-- KEYS[2] delayed: zset of marks (a grouped job waits in <delayed>:<g>, one of the default group in a
--   page <delayed>:\2<n>, found by the due time of its record: _delayed.lua)
-- KEYS[3] ready: list
-- KEYS[4] dead: zset
-- KEYS[5] claims: hash, id -> claim entry (see _claims.lua)
-- KEYS[6] groups: hash, id -> group (grouped jobs only)
-- KEYS[7] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[8] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] id
-- ARGV[2] mode: 'd' (delay ms from now) or 'a' (absolute epoch ms)
-- ARGV[3] time
-- ARGV[4] wake: the wake channel
-- Returns 1 if rescheduled, 0 if absent, held by a consumer (RUNNING or PREFETCHED) or dead.
-- Cost: O(log N + log G) for G groups with ready jobs.
local c = claim_of(redis.call('HGET', KEYS[5], ARGV[1]))
if (c and c.hold ~= FREE) or redis.call('ZSCORE', KEYS[4], ARGV[1]) then return 0 end
local rec = redis.call('HGET', KEYS[1], ARGV[1])
local r = rec and decode(rec)
if not r then return 0 end
local now = now_ms()
local due = tonumber(ARGV[3])
if ARGV[2] == 'd' then due = now + due end
local old_head = head_score(KEYS[2])
-- taken out of delayed (found by its old due time) before it goes back in by the new one
local was_delayed = remove_delayed(KEYS[2], KEYS[6], ARGV[1], r.due)
r.due = due
redis.call('HSET', KEYS[1], ARGV[1], encode(r))
if due <= now then
  if was_delayed then
    push_ready({ ARGV[1] }, KEYS[6], KEYS[3], KEYS[7], KEYS[8])
  end
else
  add_delayed(KEYS[2], redis.call('HGET', KEYS[6], ARGV[1]), { due, ARGV[1] }, now)
  wake_if_head(KEYS[2], ARGV[4], due, old_head)
end
return 1
