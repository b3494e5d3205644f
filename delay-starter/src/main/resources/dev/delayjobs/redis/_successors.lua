--! include: _base36, _clock, _wake, _groups, _delayed
-- Successors: a keyed publish that meets its job held by a consumer (RUNNING or PREFETCHED) is kept
-- in the queue's successors hash, id -> replace flag ('0' or '1'), then for a grouped publish a newline,
-- its group and a newline (a group has no control character, a record starts with its gen), then the
-- record the publish built (its own gen, due and publish times, no attempt). It takes the key when the
-- held job ends (acked or buried); a replacing one also when the held job is retried. A recovered job
-- keeps it. The successor takes the key with its own group, not the held job's.
-- q names the keys: { jobs, delayed, ready, errors, successors, claims, groups, rotation (groups-ready),
-- held (group-held), wake (channel, or nil: no wake) }.
local QUEUED = 3 -- publish status: stored as the successor of the held job

-- A publish of record in group ('' the default group) for the held job id: the successor, or, while
-- one waits, a publish onto it, which keeps it, or replaces it when replace is '1' (the rules of a
-- publish onto a waiting job). Returns the publish status: QUEUED, or 0 when the waiting successor
-- was kept. O(1).
local function queue_successor(successors_key, id, record, replace, group)
  local stored = record
  if group ~= '' then stored = '\n' .. group .. '\n' .. record end
  if redis.call('HSETNX', successors_key, id, replace .. stored) == 1 then return QUEUED end
  if replace ~= '1' then return 0 end
  redis.call('HSET', successors_key, id, '1' .. stored)
  return QUEUED
end

-- The stored successor waiting takes the key of id: its record becomes the job (a new gen, no
-- attempt, no claim entry) in its own group, DELAYED or READY (on its group's list) by its due time,
-- and the job's error is cleared. O(log N + log G).
local function take_over(q, id, waiting)
  redis.call('HDEL', q.successors, id)
  local record, group = string.sub(waiting, 2), nil
  if string.sub(waiting, 2, 2) == '\n' then
    local close = string.find(waiting, '\n', 3, true)
    group, record = string.sub(waiting, 3, close - 1), string.sub(waiting, close + 1)
  end
  if group then redis.call('HSET', q.groups, id, group) else redis.call('HDEL', q.groups, id) end
  local due = from36(string.match(record, '^[0-9a-z]+,(%-?[0-9a-z]+),'))
  redis.call('HSET', q.jobs, id, record)
  -- a new job: no attempt, nobody holds it
  redis.call('HDEL', q.claims, id)
  redis.call('HDEL', q.errors, id)
  q.now = q.now or now_ms()
  if due <= q.now then
    push_ready({ id }, q.groups, q.ready, q.rotation, q.held)
  else
    local old_head = head_score(q.delayed)
    add_delayed(q.delayed, group, { due, id }, q.now)
    if q.wake then wake_if_head(q.delayed, q.wake, due, old_head) end
  end
end

-- When the held job id is retried (replacing_only: only a replacing successor takes the key) or
-- buried (any successor does). Returns whether one took it. O(log N).
local function successor_takes_over(q, id, replacing_only)
  local waiting = redis.call('HGET', q.successors, id)
  if not waiting or (replacing_only and string.sub(waiting, 1, 1) ~= '1') then return false end
  take_over(q, id, waiting)
  return true
end

-- After the jobs ids were deleted (acked): each one's successor, if any, takes its key. One HMGET
-- per 1000 ids, so an ack without successors costs one command more.
local function successors_take_over(q, ids)
  for from = 1, #ids, 1000 do
    local upto = math.min(from + 999, #ids)
    local waiting = redis.call('HMGET', q.successors, unpack(ids, from, upto))
    for i = from, upto do
      if waiting[i - from + 1] then take_over(q, ids[i], waiting[i - from + 1]) end
    end
  end
end
