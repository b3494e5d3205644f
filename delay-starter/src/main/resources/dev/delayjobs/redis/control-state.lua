-- control-state: the operator's settings of a queue, read on the master (read-your-writes).
-- KEYS[1] control: hash (see pause.lua)
-- Returns {paused at (epoch ms) or false, runtime rate limit 'permits/window ms' or false}. Cost: O(1).
return redis.call('HMGET', KEYS[1], 'paused', 'rate')
