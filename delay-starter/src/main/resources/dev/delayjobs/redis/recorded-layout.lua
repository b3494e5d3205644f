-- recorded-layout: how many partitions a queue is laid out in (read-only; run on the master so that a
-- layout just recorded is read back).
-- KEYS[1] layouts: the registry of layouts (hash: queue -> partition count)
-- ARGV[1] queue
-- Returns the count, or nil when the queue was never laid out in partitions. Cost: O(1).
return redis.call('HGET', KEYS[1], ARGV[1])
