--! include: _clock
-- expired-instances: the ids of the instances whose lease on a queue ran out, at most 100 (as many
-- as recover-expired.lua takes), so that recover-expired.lua can be handed their active lists as
-- declared keys (read-only; run on the master).
-- KEYS[1] instances: zset, instance -> lease deadline
-- Returns the instance ids. Cost: O(log I + 100) for I instances.
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, 100)
