--! include: _chunks
-- Delayed jobs by group (docs/architecture.md#groups). A job of the default group waits in the
-- queue's delayed zset, scored with its due time (epoch ms). A job of group g waits in the zset
-- <delayed>:<g>, and the delayed zset holds one mark for g: the member MARK .. g (no id or group has
-- a control character), scored with the due time of g's earliest job. The head of the delayed zset
-- is therefore still the queue's next due time (timers, wakes and the oldest overdue read it as
-- before), and a transfer that meets a mark moves a share of that group's due jobs (transfer.lua):
-- a flood of one group due at one instant does not hold back another group's jobs due after it.
-- The hash <delayed>-counts keeps 'jobs' (jobs in group zsets) and 'marks' (marks in the delayed
-- zset), so that the number of delayed jobs is read in O(1) (delayed_count).
local MARK = '\1'

-- The zset of group g's delayed jobs.
local function group_delayed(delayed_key, g)
  return delayed_key .. ':' .. g
end

local function delayed_counts(delayed_key)
  return delayed_key .. '-counts'
end

-- The group a member of the delayed zset marks, or nil when the member is a job of the default group.
local function mark_group(member)
  if string.byte(member, 1) == 1 then return string.sub(member, 2) end
  return nil
end

-- Scores g's mark with g's earliest delayed job, or removes it when g has none. O(log N).
local function rescore_mark(delayed_key, g)
  local head = redis.call('ZRANGE', group_delayed(delayed_key, g), 0, 0, 'WITHSCORES')
  if head[2] then
    if redis.call('ZADD', delayed_key, head[2], MARK .. g) == 1 then
      redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', 1)
    end
  elseif redis.call('ZREM', delayed_key, MARK .. g) == 1 then
    redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', -1)
  end
end

-- Delays jobs by group: by_group maps a group ('' the default group) to its {due, id, due, id, ...},
-- groups lists the groups of by_group in order. A job delayed already gets its new due time. One
-- ZADD per group, then one ZADD of the marks and one HINCRBY for the whole call. O(n log N) for n
-- jobs.
local function add_delayed_groups(delayed_key, by_group, groups)
  local marks, jobs_added = {}, 0
  for _, g in ipairs(groups) do
    local scored = by_group[g]
    if #scored > 0 and g == '' then
      call_in_chunks('ZADD', delayed_key, scored)
    elseif #scored > 0 then
      local added = call_in_chunks('ZADD', group_delayed(delayed_key, g), scored)
      jobs_added = jobs_added + added
      if added * 2 < #scored then
        -- a job moved: its old due time may have been the group's earliest
        rescore_mark(delayed_key, g)
      else
        local earliest = scored[1]
        for i = 3, #scored, 2 do if scored[i] < earliest then earliest = scored[i] end end
        marks[#marks + 1] = earliest
        marks[#marks + 1] = MARK .. g
      end
    end
  end
  if jobs_added > 0 then redis.call('HINCRBY', delayed_counts(delayed_key), 'jobs', jobs_added) end
  if #marks > 0 then
    -- LT: an existing mark moves only to an earlier time
    local new_marks = call_in_chunks('ZADD', delayed_key, marks, 'LT')
    if new_marks > 0 then redis.call('HINCRBY', delayed_counts(delayed_key), 'marks', new_marks) end
  end
end

-- Delays the jobs of scored ({due, id, due, id, ...}) in group g ('' or nil: the default group).
local function add_delayed(delayed_key, g, scored)
  add_delayed_groups(delayed_key, { [g or ''] = scored }, { g or '' })
end

-- Takes id out of the delayed jobs, wherever it waits (its group read from groups_key only when it
-- is not a delayed job of the default group). Returns whether it was delayed. O(log N).
local function remove_delayed(delayed_key, groups_key, id)
  if redis.call('ZREM', delayed_key, id) == 1 then return true end
  local g = redis.call('HGET', groups_key, id)
  if not g or redis.call('ZREM', group_delayed(delayed_key, g), id) == 0 then return false end
  redis.call('HINCRBY', delayed_counts(delayed_key), 'jobs', -1)
  rescore_mark(delayed_key, g)
  return true
end

-- The due time id is delayed until (a string, as ZSCORE gives it), or false when it is not delayed. O(1).
local function delayed_score(delayed_key, groups_key, id)
  local score = redis.call('ZSCORE', delayed_key, id)
  if score then return score end
  local g = redis.call('HGET', groups_key, id)
  return g and redis.call('ZSCORE', group_delayed(delayed_key, g), id) or false
end

-- The due times of ids (false for one not delayed), groups[i] the group of ids[i] (false or nil:
-- the default group). A group's zset has jobs exactly while its mark is in the delayed zset: one
-- ZMSCORE of the ids and of their groups' marks, then one of a group's zset only for a group
-- marked. O(#ids log N), at most 1000 ids.
local function delayed_scores(delayed_key, ids, groups)
  local probe, marked, of_group = {}, {}, {}
  for i, id in ipairs(ids) do
    probe[i] = id
    local own = groups[i]
    if own then
      if not of_group[own] then
        of_group[own] = {}
        marked[#marked + 1] = own
      end
      local at = of_group[own]
      at[#at + 1] = i
    end
  end
  for j, own in ipairs(marked) do probe[#ids + j] = MARK .. own end
  local scores = redis.call('ZMSCORE', delayed_key, unpack(probe))
  for j, own in ipairs(marked) do
    if scores[#ids + j] then
      local at, members = of_group[own], {}
      for m, i in ipairs(at) do members[m] = ids[i] end
      local in_group = redis.call('ZMSCORE', group_delayed(delayed_key, own), unpack(members))
      for m, i in ipairs(at) do scores[i] = scores[i] or in_group[m] end
    end
  end
  return scores
end

-- Takes, from each group of gs, up to most jobs due by time (epoch ms) out of its zset, earliest
-- first, and rescores the marks. Returns the ids taken of each group, in the order of gs. Per
-- group one ZRANGE and one ZREMRANGEBYRANK, then one ZADD, one ZREM and one HMGET/HINCRBY pair
-- for all: O(log N + m) per group for m taken.
local function take_due_of_groups(delayed_key, gs, time, most)
  local taken, heads, emptied, total = {}, {}, {}, 0
  for i, g in ipairs(gs) do
    local set = group_delayed(delayed_key, g)
    -- one past the most: the first not taken is the group's next earliest
    local range = redis.call('ZRANGE', set, 0, most, 'WITHSCORES')
    local ids = {}
    for j = 1, #range, 2 do
      if #ids == most or tonumber(range[j + 1]) > time then
        heads[#heads + 1] = range[j + 1]
        heads[#heads + 1] = MARK .. g
        break
      end
      ids[#ids + 1] = range[j]
    end
    if #ids > 0 then redis.call('ZREMRANGEBYRANK', set, 0, #ids - 1) end
    if #ids * 2 == #range then emptied[#emptied + 1] = MARK .. g end
    total = total + #ids
    taken[i] = ids
  end
  call_in_chunks('ZADD', delayed_key, heads, 'XX')
  local counts = delayed_counts(delayed_key)
  if total > 0 then redis.call('HINCRBY', counts, 'jobs', -total) end
  local removed = call_in_chunks('ZREM', delayed_key, emptied)
  if removed > 0 then redis.call('HINCRBY', counts, 'marks', -removed) end
  return taken
end

-- The number of delayed jobs, of every group. O(1).
local function delayed_count(delayed_key)
  local counts = redis.call('HMGET', delayed_counts(delayed_key), 'jobs', 'marks')
  return redis.call('ZCARD', delayed_key) + tonumber(counts[1] or '0') - tonumber(counts[2] or '0')
end
