-- rate-limit: sets or clears the runtime rate limit of a queue, which every consumer applies in
-- place of its configured one (delay.queues.<q>.rate-limit) until it is cleared.
-- KEYS[1] control: hash (see pause.lua)
-- ARGV[1] permits: '0' clears
-- ARGV[2] window-ms
-- ARGV[3] channel: the control channel
-- Returns 1. Cost: O(1).
if tonumber(ARGV[1]) > 0 then
  redis.call('HSET', KEYS[1], 'rate', ARGV[1] .. '/' .. ARGV[2])
else
  redis.call('HDEL', KEYS[1], 'rate')
end
redis.pcall('PUBLISH', ARGV[3], 'rate')
return 1
