--! include: _ahead
-- schedules-due: the schedules whose next tick is at or before a time, earliest first; drops up to
-- 200 index entries of ticks published ahead whose instant has passed (see _ahead.lua).
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published (epoch ms)
-- KEYS[3] schedule-ahead: zset, the jobs of ticks published ahead, by name
-- KEYS[4] schedule-ahead-due: zset, the same by tick
-- ARGV[1] lookahead-ms: ticks up to the Redis clock's now plus this are returned
-- ARGV[2] max: most schedules returned (the caller bounds it, 1 to 1000)
-- ARGV[3] soon-ms: how far ahead the schedules with a tick are counted (the timer's burst check)
-- ARGV[4] offset: due schedules passed over first, 0 to 1000 (those the caller read and left, a
--   SKIP schedule's tick not yet come)
-- Returns { now, count, soon, name, tick, value, name, tick, value, ... } (now: the Redis clock,
-- epoch ms; count: the members of KEYS[2], so that a caller finding none can read less often; soon:
-- those with a tick up to now plus soon-ms). Cost: O(log S + offset + K + 200 log A).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max = tonumber(ARGV[2])
if max < 1 or max > 1000 then return redis.error_reply('max must be 1 to 1000, was ' .. ARGV[2]) end
local offset = tonumber(ARGV[4])
if not offset or offset < 0 or offset > 1000 then return redis.error_reply('offset must be 0 to 1000, was ' .. ARGV[4]) end
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now + tonumber(ARGV[1]), 'WITHSCORES', 'LIMIT', offset, max)
prune_ahead(KEYS[3], KEYS[4], now, 200)
local out = { tostring(now), redis.call('ZCARD', KEYS[2]), redis.call('ZCOUNT', KEYS[2], '-inf', now + tonumber(ARGV[3])) }
for i = 1, #due, 2 do
  local value = redis.call('HGET', KEYS[1], due[i])
  if value then
    out[#out + 1] = due[i]
    out[#out + 1] = due[i + 1]
    out[#out + 1] = value
  end
end
return out
