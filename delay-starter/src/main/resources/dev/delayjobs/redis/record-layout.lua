-- record-layout: records in the registry of layouts, which publishers read, how many partitions a
-- queue is laid out in; called last, once every partition was told (record-partition-layout.lua).
-- KEYS[1] layouts: the registry of layouts (hash: queue -> partition count)
-- ARGV[1] partitions: the partition count
-- ARGV[2] queue: the queue's name
-- Writes only a count that differs from the one recorded: a consumer that starts on a full Redis
-- (maxmemory under noeviction refuses a write that adds data) re-records its unchanged layout.
-- Returns 1. Cost: O(1).
if redis.call('HGET', KEYS[1], ARGV[2]) ~= ARGV[1] then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[1])
end
return 1
