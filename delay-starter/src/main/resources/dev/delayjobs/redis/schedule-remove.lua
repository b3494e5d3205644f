-- schedule-remove: deletes schedules (their jobs already published stay).
-- KEYS[1] schedules: hash
-- KEYS[2] schedule-ticks: zset
-- ARGV[1..] name: the schedules to delete
-- Returns the number deleted. Cost: O(K log S).
local n = 0
for _, name in ipairs(ARGV) do
  n = n + redis.call('HDEL', KEYS[1], name)
  redis.call('ZREM', KEYS[2], name)
end
return n
