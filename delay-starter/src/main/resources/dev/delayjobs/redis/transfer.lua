--! include: _chunks, _clock, _wake, _groups, _delayed
-- transfer: moves due jobs from delayed to ready (the watchdog timer's step), fair between groups.
-- The default group's due jobs go to ready, oldest due first: its plain ids (jobs due within a
-- minute of their publish) merged with the jobs of the page marks met (_delayed.lua); a group's
-- mark met moves an equal share of what is left of the call's budget of that group's due jobs,
-- oldest first, to the group's ready list (_groups.lua). So a group whose jobs fall due while
-- another's flood is being moved is served in the next call, not after the flood.
-- KEYS[1] delayed: zset of marks (a group's delayed jobs are in <delayed>:<g>, the default group's
--   in pages <delayed>:\2<n> indexed in <delayed>-pages, counted in <delayed>-counts: _delayed.lua)
-- KEYS[2] ready: list
-- KEYS[3] groups: hash, id -> group (grouped jobs only)
-- KEYS[4] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[5] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] max: at most this many members of the delayed zset per call, and (about) this many jobs
-- Returns {moved, next due time in epoch ms or -1, server now in epoch ms}.
-- Cost: O(log N + M log N) for M moved, and O(log N + log G) for each of at most ARGV[1] groups
-- or pages met (two commands per page met; three per group: ZRANGE, ZREMRANGEBYRANK, RPUSH; the marks, counts and rotation in
-- a few commands for all); never scans the backlog nor reads a record.
local now = now_ms()
local max = tonumber(ARGV[1])
-- the due times of the plain ids are read only while the default group has pages to merge them with
local paged = redis.call('EXISTS', page_index(KEYS[1])) == 1
local due = paged and redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, max)
  or redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max)
local step = paged and 2 or 1
local plain, marked, pages = {}, {}, {}
for j = 1, #due, step do
  local member = due[j]
  local g, n = mark_group(member), mark_page(member)
  if g then
    marked[#marked + 1] = g
  elseif n then
    pages[#pages + 1] = n
  else
    plain[#plain + 1] = member
    if paged then plain[#plain + 1] = due[j + 1] end
  end
end
local moved = 0
if #pages > 0 then
  -- the default group is not shared out: its plain ids and its pages' jobs, merged in due order
  local ids = take_due_of_default(KEYS[1], plain, pages, now, max)
  call_in_chunks('RPUSH', KEYS[2], ids)
  moved = #ids
elseif #plain > 0 then
  local ids = plain
  if paged then
    ids = {}
    for j = 1, #plain, 2 do ids[#ids + 1] = plain[j] end
  end
  call_in_chunks('ZREM', KEYS[1], ids)
  call_in_chunks('RPUSH', KEYS[2], ids)
  moved = #ids
end
if #marked > 0 then
  local share = math.max(1, math.floor((max - moved) / #marked))
  local taken = take_due_of_groups(KEYS[1], marked, now, share)
  local served = {}
  for i, g in ipairs(marked) do
    if #taken[i] > 0 then
      call_in_chunks('RPUSH', group_list(KEYS[2], g), taken[i])
      served[#served + 1] = g
      moved = moved + #taken[i]
    end
  end
  if #served > 0 then
    into_rotation_all(KEYS[4], KEYS[5], served)
    wake_consumers(KEYS[2])
  end
end
local next_due = head_score(KEYS[1]) or -1
return { moved, next_due, now }
