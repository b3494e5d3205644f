--! include: _clock
-- schedule-park: takes a schedule whose spec this release cannot read out of the ticks, so that it
-- cannot stay at the head of schedule-ticks (where it would be read again every round, ahead of the
-- rest); looks at parked ones again; puts one back once an instance reads its spec.
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published
-- KEYS[3] schedules-parked: zset, name -> when last looked at (Redis clock, epoch ms)
-- ARGV[1] action: 'park' (if the schedule still has spec and its tick is tick), 'look' (a parked
--   one with spec is looked at again later: its time set to now) or 'unpark' (a parked one with spec
--   ticks again from tick)
-- ARGV[2] name
-- ARGV[3] spec: the spec read (the value's part before its newline): nothing is done if it changed
-- ARGV[4] tick: park: the tick read; unpark: the next tick (epoch ms); look: ignored
-- Returns 1 if done, 0 if the schedule moved on meanwhile. Cost: O(log S).
local value = redis.call('HGET', KEYS[1], ARGV[2])
if not value or string.sub(value, 1, #ARGV[3] + 1) ~= ARGV[3] .. '\n' then return 0 end
if ARGV[1] == 'park' then
  local stored = redis.call('ZSCORE', KEYS[2], ARGV[2])
  if not stored or tonumber(stored) ~= tonumber(ARGV[4]) then return 0 end
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('ZADD', KEYS[3], now_ms(), ARGV[2])
  return 1
end
if not redis.call('ZSCORE', KEYS[3], ARGV[2]) then return 0 end
if ARGV[1] == 'look' then
  redis.call('ZADD', KEYS[3], now_ms(), ARGV[2])
  return 1
end
if ARGV[1] == 'unpark' then
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[2])
  return 1
end
return redis.error_reply('action must be park, look or unpark, was ' .. ARGV[1])
