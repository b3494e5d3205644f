-- Groups (docs/architecture.md#groups): the ready ids of group g are in the list <ready>:<g>, those of
-- the default group ('' here, no group given) in the queue's ready list as before. The rotation is a
-- zset of the groups that have ready jobs (the default group as ''), score = turn: the claim serves
-- the lowest first and puts it back at the next turn. The turn counter is the field '' of the
-- group-held hash (no group name is blank).

-- The ready list of group g (nil or '': the default group's, the queue's ready list).
local function group_list(ready_key, g)
  if not g or g == '' then return ready_key end
  return ready_key .. ':' .. g
end

-- The next turn of the rotation.
local function next_turn(held_key)
  return redis.call('HINCRBY', held_key, '', 1)
end

-- Puts group g at the back of the rotation unless it is in it already.
local function into_rotation(rotation_key, held_key, g)
  if not redis.call('ZSCORE', rotation_key, g) then
    redis.call('ZADD', rotation_key, next_turn(held_key), g)
  end
end

-- Pushes ids onto their groups' ready lists (RPUSH, or LPUSH when front) and puts those groups in
-- the rotation; groups[i] is the group of ids[i] (false or '': the default group). The default
-- group joins the rotation only once other groups are in it (claim.lua adds it then), so an
-- ungrouped queue never has one.
local function push_by_group(ids, groups, ready_key, rotation_key, held_key, front)
  local lists, order = {}, {}
  for i, id in ipairs(ids) do
    local g = groups[i] or ''
    local list = lists[g]
    if not list then
      list = {}
      lists[g] = list
      order[#order + 1] = g
    end
    list[#list + 1] = id
  end
  local cmd = front and 'LPUSH' or 'RPUSH'
  for _, g in ipairs(order) do
    local list = lists[g]
    for i = 1, #list, 1000 do redis.call(cmd, group_list(ready_key, g), unpack(list, i, math.min(i + 999, #list))) end
    if g ~= '' then into_rotation(rotation_key, held_key, g) end
  end
end
