-- schedules-declared: refreshes the declaration time of the schedules an instance declares, and
-- reads those that no running application declared since a time (undeclared).
-- KEYS[1] schedule-declared: zset, name -> when a running application last declared it (epoch ms)
-- ARGV[1] before-ms: schedules last declared more than this long ago (Redis clock) are returned
-- ARGV[2] max: most returned (1 to 1000)
-- ARGV[3..] name: the schedules the caller declares: their time set to now, if still declared
--   (a schedule removed is not brought back)
-- Returns { now, name, declared, name, declared, ... }. Cost: O(K log S + log S + max).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[2])
if max < 1 or max > 1000 then return redis.error_reply('max must be 1 to 1000, was ' .. ARGV[2]) end
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now, ARGV[i]) end
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]), 'WITHSCORES', 'LIMIT', 0, max)
local out = { tostring(now) }
for i = 1, #old, 2 do
  out[#out + 1] = old[i]
  out[#out + 1] = old[i + 1]
end
return out
