-- bury: a job that exhausted its attempts, or cannot be read, goes to the dead set with its error.
-- KEYS[1] active:<instance> (list)   KEYS[2] jobs (hash)   KEYS[3] dead (zset)
-- KEYS[4] errors (hash)              KEYS[5] stats (hash)
-- ARGV[1] id  ARGV[2] gen claimed  ARGV[3] error text  ARGV[4] attempt claimed (see ack.lua)
-- Returns 1 if buried, 0 if the caller no longer held the job, or it was gone or replaced. Cost: O(log N).
-- only a caller that still holds this claim of the job may move it (see ack.lua)
local rec = redis.call('HGET', KEYS[2], ARGV[1])
local r = rec and decode(rec)
if r and (r.gen ~= ARGV[2] or r.attempts ~= tonumber(ARGV[4])) then return 0 end
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return 0 end
if not rec then return 0 end
if r then
  if r.running ~= '1' then return 0 end
  r.running = '0'
  redis.call('HSET', KEYS[2], ARGV[1], encode(r))
end
redis.call('ZADD', KEYS[3], now_ms(), ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
redis.call('HINCRBY', KEYS[5], 'dead', 1)
return 1
