-- schedule-remove: deletes schedules (their jobs already published stay), with what is kept about them.
-- KEYS[1] schedules: hash
-- KEYS[2] schedule-ticks: zset
-- KEYS[3] schedule-last: hash, name -> last published tick
-- KEYS[4] schedule-outcomes: hash, name -> last outcome
-- KEYS[5] schedule-declared: zset, name -> when last declared
-- KEYS[6] schedules-parked: zset, name -> when last looked at
-- ARGV[1..] name: the schedules to delete
-- Returns the number deleted. Cost: O(K log S).
local n = 0
for _, name in ipairs(ARGV) do
  n = n + redis.call('HDEL', KEYS[1], name)
  redis.call('ZREM', KEYS[2], name)
  redis.call('HDEL', KEYS[3], name)
  redis.call('HDEL', KEYS[4], name)
  redis.call('ZREM', KEYS[5], name)
  redis.call('ZREM', KEYS[6], name)
end
return n
