-- schedules-due: the schedules whose next tick is at or before a time, earliest first (read-only).
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published (epoch ms)
-- ARGV[1] lookahead-ms: ticks up to the Redis clock's now plus this are returned
-- ARGV[2] max: most schedules returned (the caller bounds it, 1 to 1000)
-- Returns { now, count, name, tick, value, name, tick, value, ... } (now: the Redis clock, epoch ms;
-- count: the members of KEYS[2], so that a caller finding none can read less often). Cost: O(log S + K).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[2])
if max < 1 or max > 1000 then return redis.error_reply('max must be 1 to 1000, was ' .. ARGV[2]) end
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now + tonumber(ARGV[1]), 'WITHSCORES', 'LIMIT', 0, max)
local out = { tostring(now), redis.call('ZCARD', KEYS[2]) }
for i = 1, #due, 2 do
  local value = redis.call('HGET', KEYS[1], due[i])
  if value then
    out[#out + 1] = due[i]
    out[#out + 1] = due[i + 1]
    out[#out + 1] = value
  end
end
return out
