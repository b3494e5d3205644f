--! include: _clock
-- resume: consumers of a paused queue claim again. The control channel tells the waiting ones at
-- once; one that misses the message (a reconnect) reads the state again within a second.
-- KEYS[1] control: hash (see pause.lua)
-- ARGV[1] channel: the control channel
-- Returns 1 if the queue was paused, 0 otherwise. Cost: O(1).
local was = redis.call('HDEL', KEYS[1], 'paused')
redis.call('HSET', KEYS[1], 'resumed', now_ms())
if was == 1 then redis.pcall('PUBLISH', ARGV[1], 'resumed') end
return was
