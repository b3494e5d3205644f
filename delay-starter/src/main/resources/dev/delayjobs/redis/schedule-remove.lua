--! include: _clock, _ahead
-- schedule-remove: deletes schedules, with what is kept about them, and takes back the jobs of
-- their ticks published ahead whose instant is still to come (jobs already due or running stay).
-- KEYS[1] schedules: hash
-- KEYS[2] schedule-ticks: zset
-- KEYS[3] schedule-last: hash, name -> last published tick
-- KEYS[4] schedule-outcomes: hash, name -> last outcome
-- KEYS[5] schedule-declared: zset, name -> when last declared
-- KEYS[6] schedules-parked: zset, name -> when last looked at
-- KEYS[7] schedule-ahead: zset, the jobs of ticks published ahead (see _ahead.lua)
-- KEYS[8] schedule-ahead-due: zset, the same by tick
-- KEYS[9] jobs: hash
-- KEYS[10] delayed: zset
-- ARGV[1..] name: the schedules to delete
-- Returns the number deleted. Cost: O(K (log S + P log N)) for P ticks published ahead per
-- schedule (at most the timer's lookahead over the schedule's period, see _ahead.lua).
local now = now_ms()
local n = 0
for _, name in ipairs(ARGV) do
  n = n + redis.call('HDEL', KEYS[1], name)
  redis.call('ZREM', KEYS[2], name)
  redis.call('HDEL', KEYS[3], name)
  redis.call('HDEL', KEYS[4], name)
  redis.call('ZREM', KEYS[5], name)
  redis.call('ZREM', KEYS[6], name)
  take_back_ahead(KEYS[7], KEYS[8], KEYS[9], KEYS[10], name, now)
end
return n
