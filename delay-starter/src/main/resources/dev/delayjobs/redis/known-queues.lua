-- known-queues: the names of the queues published to or consumed under a prefix.
-- KEYS[1] registry: the prefix's queue registry (set)
-- A script, not a plain SMEMBERS, so that it runs on the master like every other call of the
-- starter: with Redisson reading from replicas (readMode SLAVE, its cluster and sentinel
-- default), a queue registered a moment ago could be missing from a replica.
-- Returns the names. Cost: O(number of queues).
return redis.call('SMEMBERS', KEYS[1])
