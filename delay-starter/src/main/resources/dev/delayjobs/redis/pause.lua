--! include: _clock
-- pause: an operator stops every consumer of a queue from claiming; publishing and the transfer of
-- due jobs go on. Claim checks the control hash on every call, so consumers stop at their next claim.
-- KEYS[1] control: hash, paused -> epoch ms, resumed -> epoch ms, rate -> runtime rate limit
-- ARGV[1] on-startup: '1' to pause only a queue never paused nor resumed before
--   (delay.queues.<q>.paused-on-startup), '0' to pause in any case
-- ARGV[2] channel: the control channel (told 'paused', so waiting consumers re-read their state)
-- Returns 1 if the queue was not paused and now is, 0 otherwise. Cost: O(1).
if redis.call('HEXISTS', KEYS[1], 'paused') == 1 then return 0 end
if ARGV[1] == '1' and redis.call('HEXISTS', KEYS[1], 'resumed') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'paused', now_ms())
redis.pcall('PUBLISH', ARGV[2], 'paused')
return 1
