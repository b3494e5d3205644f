-- record-layout: records how many partitions a queue is laid out in. Called with the control hash of
-- each partition (and of each partition of the layout it replaces), where publish.lua refuses jobs
-- routed by another count; then with the registry of layouts, which publishers read.
-- KEYS[1] control (hash, see pause.lua) of one partition, or the layouts registry (hash: queue -> count)
-- ARGV[1] partition count   ARGV[2] the queue's name when KEYS[1] is the registry, else absent
-- Writes only a count that differs from the one recorded: a consumer that starts on a full Redis
-- (maxmemory under noeviction refuses a write that adds data) re-records its unchanged layout.
-- Returns 1. Cost: O(1).
local field = ARGV[2] or 'partitions'
if redis.call('HGET', KEYS[1], field) ~= ARGV[1] then
  redis.call('HSET', KEYS[1], field, ARGV[1])
end
return 1
