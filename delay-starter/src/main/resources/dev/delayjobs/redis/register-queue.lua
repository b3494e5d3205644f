-- register-queue: enters a queue name in the registry of the queues used under a prefix.
-- KEYS[1] registry: the prefix's queue registry (set)
-- ARGV[1] queue: the queue name
-- A script, so that the membership test runs on the master (Redisson may send a plain read to a
-- replica); the SADD only for a name not there yet, so that a consumer starting on a full Redis
-- (maxmemory under noeviction refuses a write that adds data, even of a member the set holds) does
-- not fail on a queue that is already registered.
-- Returns 1 when the name was added. Cost: O(1).
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
return redis.call('SADD', KEYS[1], ARGV[1])
