--! include: _chunks, _wake_marker
-- Groups (docs/architecture.md#groups): the ready ids of group g are in the list <ready>:<g>, those of
-- the default group ('' here, no group given) in the queue's ready list as before. The rotation is a
-- zset of the groups that have ready jobs (the default group as ''), score = turn: the claim serves
-- the lowest first and puts it back at the next turn. The turn counter is the field '' of the
-- group-held hash (no group name is blank). A group at its limit (group-concurrency) is parked: it
-- stays in the rotation with a score of PARKED or more, which claims do not visit, until a script
-- that ends one of its holds puts it back at the next turn (end_group_hold).
local PARKED = 1e15

-- The ready list of group g (nil or '': the default group's, the queue's ready list).
local function group_list(ready_key, g)
  if not g or g == '' then return ready_key end
  return ready_key .. ':' .. g
end

-- The next turn of the rotation.
local function next_turn(held_key)
  return redis.call('HINCRBY', held_key, '', 1)
end

-- Ends the hold of claim c (its entry's group, see _claims.lua) on its group's held count, and puts
-- the group back in turn if it was parked, waking the consumers that wait on ready_key (the queue's
-- ready list; _wake_marker.lua). Call before c.hold becomes FREE or its entry is deleted.
local function end_group_hold(c, held_key, rotation_key, ready_key)
  if not c or c.hold == 0 or not c.group then return end
  if redis.call('HINCRBY', held_key, c.group, -1) <= 0 then redis.call('HDEL', held_key, c.group) end
  local score = redis.call('ZSCORE', rotation_key, c.group)
  if score and tonumber(score) >= PARKED then
    redis.call('ZADD', rotation_key, 'XX', next_turn(held_key), c.group)
    wake_consumers(ready_key)
  end
end

-- Puts group g at the back of the rotation unless it is in it already.
local function into_rotation(rotation_key, held_key, g)
  if not redis.call('ZSCORE', rotation_key, g) then
    redis.call('ZADD', rotation_key, next_turn(held_key), g)
  end
end

-- Puts each group of gs at the back of the rotation unless it is in it already: one HINCRBY and
-- one ZADD NX for all (a group met in it already leaves its reserved turn unused, which is harmless:
-- turns are only compared); one group as into_rotation.
local function into_rotation_all(rotation_key, held_key, gs)
  if #gs == 0 then return end
  if #gs == 1 then
    into_rotation(rotation_key, held_key, gs[1])
    return
  end
  local last = redis.call('HINCRBY', held_key, '', #gs)
  local turns = {}
  for i, g in ipairs(gs) do
    turns[#turns + 1] = last - #gs + i
    turns[#turns + 1] = g
  end
  call_in_chunks('ZADD', rotation_key, turns, 'NX')
end

-- Splits items into one list per group, each in the items' order: an entry is step items (1: an
-- id; 2: a score and an id), group_of(i) ('' the default group) the group of the entry starting at
-- items[i]. Returns the lists by group and the groups in the order first met.
local function split_by_group(items, step, group_of)
  local lists, order = {}, {}
  for i = 1, #items, step do
    local g = group_of(i)
    local list = lists[g]
    if not list then
      list = {}
      lists[g] = list
      order[#order + 1] = g
    end
    for j = i, i + step - 1 do list[#list + 1] = items[j] end
  end
  return lists, order
end

-- Pushes ids onto their groups' ready lists (RPUSH, or LPUSH when front) and puts those groups in
-- the rotation; groups[i] is the group of ids[i] (false or '': the default group). The default
-- group joins the rotation only once other groups are in it (claim.lua adds it then), so an
-- ungrouped queue never has one. Consumers waiting on ready are woken when grouped ids are pushed
-- (_wake_marker.lua: one LLEN).
local function push_by_group(ids, groups, ready_key, rotation_key, held_key, front)
  local lists, order = split_by_group(ids, 1, function(i) return groups[i] or '' end)
  local cmd = front and 'LPUSH' or 'RPUSH'
  if front and lists[''] then drop_wake(ready_key) end
  local named = {}
  for _, g in ipairs(order) do
    local list = lists[g]
    call_in_chunks(cmd, group_list(ready_key, g), list)
    if g ~= '' then named[#named + 1] = g end
  end
  into_rotation_all(rotation_key, held_key, named)
  if #order > 1 or (order[1] and order[1] ~= '') then wake_consumers(ready_key) end
end

-- Pushes ids that a script makes ready (a requeue, a reschedule to now, a fast-forward, a successor
-- taking its key) onto the back of their groups' ready lists, each id's group read from the groups
-- hash (KEYS groups); the groups met join the rotation. A queue with no grouped job pushes onto
-- ready as before, for one EXISTS more. Cost: O(#ids + log G per group met).
local function push_ready(ids, groups_key, ready_key, rotation_key, held_key)
  if #ids == 0 then return end
  if redis.call('EXISTS', groups_key) == 0 then
    call_in_chunks('RPUSH', ready_key, ids)
    return
  end
  local groups = {}
  for i = 1, #ids, 1000 do
    local part = redis.call('HMGET', groups_key, unpack(ids, i, math.min(i + 999, #ids)))
    for _, g in ipairs(part) do groups[#groups + 1] = g end
  end
  push_by_group(ids, groups, ready_key, rotation_key, held_key, false)
end
