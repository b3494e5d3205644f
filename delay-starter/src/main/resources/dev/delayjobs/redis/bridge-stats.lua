--! include: _clock, _wake
-- bridge-stats: the depth of a Redisson RDelayedQueue, for the endpoint, health and gauges (read-only).
-- KEYS[1] target: Redisson's destination list (see bridge-adopt.lua)
-- KEYS[2] timeouts: Redisson's timeout set (zset)
-- Returns {server now in epoch ms, elements waiting for their due time, due elements in the target
-- list, earliest due time in epoch ms or -1}.
-- Cost: O(1).
return { now_ms(), redis.call('ZCARD', KEYS[2]), redis.call('LLEN', KEYS[1]), head_score(KEYS[2]) or -1 }
