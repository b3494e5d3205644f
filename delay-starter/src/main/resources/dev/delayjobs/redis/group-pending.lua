--! include: _clock, _groups, _claims, _delayed
-- group-pending: for tests, what of one group is waiting to be handled now (read-only): what
-- DelayQueueTester.awaitGroupIdle waits on.
-- KEYS[1] delayed: zset (the group's delayed jobs are in <delayed>:<group>: _delayed.lua)
-- KEYS[2] ready: list (the group's own list is <ready>:<group>, see _groups.lua)
-- KEYS[3] groups: hash, id -> group (grouped jobs only)
-- KEYS[4] group-held: hash, group -> held jobs (RUNNING + PREFETCHED, all instances) counted under a
--   group limit
-- KEYS[5] instances: zset, instance -> lease deadline
-- KEYS[6] claims: hash, id -> claim entry (see _claims.lua)
-- ARGV[1] group: the group (not blank)
-- ARGV[2] active-prefix: prefix of the instances' active lists (not declared: a test-only read, same
--   hash tag): a job claimed without a group limit is in no count, so the held jobs whose claim entry
--   names no group are looked up in groups
-- Returns {ids in the group's ready list (stale ones included: a claim drops them), jobs of the
-- group held, jobs of the group due and not yet transferred}.
-- Cost: O(log N + I + H) for I instances holding H jobs.
local due_of_group = redis.call('ZCOUNT', group_delayed(KEYS[1], ARGV[1]), '-inf', now_ms())
local uncounted = 0
if redis.call('EXISTS', KEYS[3]) == 1 then
  for _, instance in ipairs(redis.call('ZRANGE', KEYS[5], 0, -1)) do
    local ids = redis.call('LRANGE', ARGV[2] .. instance, 0, -1)
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
