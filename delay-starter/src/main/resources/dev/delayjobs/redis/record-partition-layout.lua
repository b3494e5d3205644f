-- record-partition-layout: records in one partition's control hash how many partitions its queue is
-- laid out in, so that publish.lua refuses jobs routed by another count. Called for each partition
-- of the new layout and of the layout it replaces, then record-layout.lua records the count for
-- publishers; close-layout.lua's caller also uses it to open a partition it closed again.
-- KEYS[1] control: the partition's control hash (see pause.lua), field 'partitions'
-- ARGV[1] partitions: the partition count
-- Writes only a count that differs from the one recorded (see record-layout.lua).
-- Returns 1. Cost: O(1).
if redis.call('HGET', KEYS[1], 'partitions') ~= ARGV[1] then
  redis.call('HSET', KEYS[1], 'partitions', ARGV[1])
end
return 1
