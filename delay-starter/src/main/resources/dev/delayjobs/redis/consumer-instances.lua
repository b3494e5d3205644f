-- consumer-instances: the ids of the instances holding (or having held) a lease on a queue, so that
-- queue-stats.lua can be handed their active lists as declared keys (read-only; run on the master).
-- KEYS[1] instances: zset, instance -> lease deadline
-- Returns the instance ids. Cost: O(I) for I instances.
return redis.call('ZRANGE', KEYS[1], 0, -1)
