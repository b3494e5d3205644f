--! include: _clock, _wake_marker, _delayed
-- close-layout: the first step of laying a queue out in another number of partitions (then
-- record-partition-layout.lua and record-layout.lua record the change, or the caller opens what it closed again).
-- On a partition of the old layout ('old'): closes it to publishes routed by the old count (its
-- 'partitions' field becomes the new count, so publish.lua refuses them with 'LAYOUT <new count>')
-- and, in the same call, counts what is left in it; when anything is, it sets the old count back.
-- A publish routed by the old count therefore either came first, and is counted, or is refused.
-- On a partition of the new layout only ('new'): closes it to publishes routed by the new count
-- (they are refused with 'LAYOUT <old count>') until the change is recorded, so that nothing lands
-- there should the change be refused.
-- A partition whose field holds a third count belongs to another change under way: left as it is.
-- KEYS[1] control: hash (see pause.lua)
-- KEYS[2] jobs: hash
-- KEYS[3] delayed: zset (grouped jobs counted from <delayed>-counts: _delayed.lua)
-- KEYS[4] ready: list (its wake marker is no job: _wake_marker.lua)
-- KEYS[5] dead: zset
-- KEYS[6] instances: zset, instance -> lease deadline
-- ARGV[1] old: the old count
-- ARGV[2] new: the new count
-- ARGV[3] side: 'old' or 'new'
-- ARGV[4] instance: the changing instance's id: its own lease (left from an earlier run) is no live
--   consumer
-- Returns {status, waiting jobs (delayed, ready or held by a consumer), dead jobs, live consumers of
-- other instances, the field found}; status 1 closed, 0 left open (something was found), -1 another
-- change under way. Cost: O(log I) for I consumer instances.
local old, new = ARGV[1], ARGV[2]
local field = redis.call('HGET', KEYS[1], 'partitions')
if field and field ~= old and field ~= new then return { -1, 0, 0, 0, field } end
if ARGV[3] == 'new' then
  redis.call('HSET', KEYS[1], 'partitions', old)
  return { 1, 0, 0, 0, field or '' }
end
redis.call('HSET', KEYS[1], 'partitions', new)
local delayed = delayed_count(KEYS[3])
local ready = ready_length(KEYS[4])
local dead = redis.call('ZCARD', KEYS[5])
-- every job has a record; those neither delayed, ready nor dead are held by consumers
local held = math.max(0, redis.call('HLEN', KEYS[2]) - delayed - ready - dead)
local now = now_ms()
local consumers = redis.call('ZCOUNT', KEYS[6], '(' .. now, '+inf')
local own = redis.call('ZSCORE', KEYS[6], ARGV[4])
if own and tonumber(own) > now then consumers = consumers - 1 end
local waiting = delayed + ready + held
if waiting + dead + consumers == 0 then return { 1, 0, 0, 0, field or '' } end
redis.call('HSET', KEYS[1], 'partitions', old)
return { 0, waiting, dead, consumers, field or '' }
