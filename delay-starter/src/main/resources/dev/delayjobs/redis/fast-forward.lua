--! include: _clock, _record, _groups, _delayed
-- fast-forward: for tests, makes the delayed jobs due within a window due now, oldest first.
-- KEYS[1] jobs: hash
-- KEYS[2] delayed: zset (a group's delayed jobs are in <delayed>:<g>, the default group's in pages
--   <delayed>:\2<n>: _delayed.lua)
-- KEYS[3] ready: list
-- KEYS[4] groups: hash, id -> group (grouped jobs only): a grouped job goes to its group's ready list
-- KEYS[5] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[6] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] window-ms: jobs due before now + window
-- ARGV[2] max: most jobs to move in this call
-- Each job's due time becomes the server's now (so lateness and DelayedJob.dueAt read as if it
-- had been published for now); its publish time is kept. The jobs go to ready (a grouped job to its
-- group's list, see _groups.lua), which wakes the waiting consumers. Returns the number taken out of
-- delayed (at most ARGV[2]); call again while it equals ARGV[2].
-- Cost: O(log N + m) for m jobs moved (and O(log G) per group met).
local now = now_ms()
local until_time, max = now + tonumber(ARGV[1]), tonumber(ARGV[2])
local moved = {}
-- makes id due now, unless its record is gone
local function make_due(id)
  local rec = redis.call('HGET', KEYS[1], id)
  local r = rec and decode(rec)
  if not r then return end
  if tonumber(r.due) > now then
    r.due = now
    redis.call('HSET', KEYS[1], id, encode(r))
  end
  moved[#moved + 1] = id
end
local taken = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', until_time, 'LIMIT', 0, max)) do
  if taken >= max then break end
  local g, n = mark_group(member), mark_page(member)
  local ids = (g and take_due_of_groups(KEYS[2], { g }, until_time, max - taken)[1])
    or (n and take_due_of_pages(KEYS[2], { n }, until_time, max - taken))
  if ids then
    for _, id in ipairs(ids) do
      make_due(id)
      taken = taken + 1
    end
  else
    redis.call('ZREM', KEYS[2], member)
    make_due(member)
    taken = taken + 1
  end
end
push_ready(moved, KEYS[4], KEYS[3], KEYS[5], KEYS[6])
return taken
