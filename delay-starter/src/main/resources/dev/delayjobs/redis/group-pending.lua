--! include: _clock, _groups, _claims
-- group-pending: for tests, what of one group is waiting to be handled now (read-only): what
-- DelayQueueTester.awaitGroupIdle waits on.
-- KEYS[1] delayed: zset
-- KEYS[2] ready: list (the group's own list is <ready>:<group>, see _groups.lua)
-- KEYS[3] groups: hash, id -> group (grouped jobs only)
-- KEYS[4] group-held: hash, group -> held jobs (RUNNING + PREFETCHED, all instances) counted under a
--   group limit
-- KEYS[5] instances: zset, instance -> lease deadline
-- KEYS[6] claims: hash, id -> claim entry (see _claims.lua)
-- ARGV[1] group: the group (not blank)
-- ARGV[2] most: most due delayed jobs to read
-- ARGV[3] active-prefix: prefix of the instances' active lists (not declared: a test-only read, same
--   hash tag): a job claimed without a group limit is in no count, so the held jobs whose claim entry
--   names no group are looked up in groups
-- Returns {ids in the group's ready list (stale ones included: a claim drops them), jobs of the
-- group held, jobs of the group among the first `most` due delayed jobs (due, not yet transferred)}.
-- Cost: O(log N + most + I + H) for I instances holding H jobs.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[2]))
local due_of_group = 0
if #due > 0 and redis.call('EXISTS', KEYS[3]) == 1 then
  for i = 1, #due, 1000 do
    for _, g in ipairs(redis.call('HMGET', KEYS[3], unpack(due, i, math.min(i + 999, #due)))) do
      if g == ARGV[1] then due_of_group = due_of_group + 1 end
    end
  end
end
local uncounted = 0
if redis.call('EXISTS', KEYS[3]) == 1 then
  for _, instance in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
    local ids = redis.call('LRANGE', ARGV[3] .. instance, 0, -1)
    for i = 1, #ids, 1000 do
      local part = { unpack(ids, i, math.min(i + 999, #ids)) }
      local entries = redis.call('HMGET', KEYS[6], unpack(part))
      local groups = redis.call('HMGET', KEYS[3], unpack(part))
      for j = 1, #part do
        local c = claim_of(entries[j])
        if c and c.hold ~= FREE and not c.group and groups[j] == ARGV[1] then uncounted = uncounted + 1 end
      end
    end
  end
end
return { redis.call('LLEN', group_list(KEYS[2], ARGV[1])), tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0') + uncounted,
  due_of_group }
