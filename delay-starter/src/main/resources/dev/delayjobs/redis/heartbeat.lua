--! include: _clock, _full
-- heartbeat: a consumer instance renews its lease on a queue (the instance watchdog).
-- KEYS[1] instances: zset, instance -> lease deadline
-- KEYS[2] workers: hash, instance -> concurrency
-- ARGV[1] instance: the instance id
-- ARGV[2] lease-ms
-- ARGV[3] concurrency
-- Runs when Redis is full (run_even_when_full in _full.lua): a lease that lapsed would let
-- another instance recover jobs this one still runs.
-- Returns the new deadline. Cost: O(log I) for I instances.
run_even_when_full(KEYS[2])
local deadline = now_ms() + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return deadline
