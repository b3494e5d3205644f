-- cancel: deletes a job that is still waiting (DELAYED or READY). A READY job's id may stay in
-- the ready list; claim drops it since its record is gone.
-- KEYS[1] jobs (hash)   KEYS[2] delayed (zset)   KEYS[3] dead (zset)   KEYS[4] errors (hash)
-- KEYS[5] memo of this request (string; see replayed() in _record.lua)
-- ARGV[1] id
-- Returns 1 if cancelled, 0 if absent, held by a consumer (RUNNING or PREFETCHED) or dead; a resent copy returns the first run's answer
-- (a cancel that succeeded is not reported as failed). Cost: O(log N).
local prior = replayed(KEYS[5])
if prior then return prior end
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return remember(KEYS[5], 0) end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then
  local r = decode(rec)
  if (r and r.hold ~= FREE) or redis.call('ZSCORE', KEYS[3], ARGV[1]) then return remember(KEYS[5], 0) end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return remember(KEYS[5], 1)
