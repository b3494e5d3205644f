--! include: _chunks, _claims, _groups
-- Handing back the jobs a consumer instance holds (recover-expired.lua, release.lua,
-- release-all-but.lua). Reads and writes claim entries (see _claims.lua), never a record.
-- ids are read from the instance's active list: the whole list (whole), or its tail. Each held
-- job (its claim entry not FREE) becomes FREE and goes to the front of ready, the held order kept,
-- except:
--   keep[id]       still being handled: it stays in the list, its entry untouched
--   crashed        (the instance's lease ran out) a PREFETCHED job is marked suspect: its start mark
--                  may have been lost in the crash; a RUNNING one is handed to dies(id, c), which
--                  returns false (it goes back), 'dead' (it died, its entry stays) or 'replaced' (it
--                  died and its successor took the key: the entry went with it)
-- A grouped job's hold ends on its group's count (end_group_hold) and it goes to the front of its
-- group's ready list (group_keys = {rotation = groups-ready, held = group-held, groups = groups}): the
-- group its claim entry names, else (claimed without a group limit, see claim.lua) the one in groups.
-- Then the list is rebuilt with the kept ids (whole), or its tail is trimmed off.
-- Returns how many jobs went back to ready and how many died. Cost: O(#ids), one EXISTS more.
local function hand_back(claims_key, ready_key, group_keys, active, ids, whole, keep, crashed, dies)
  -- walked last first, so that both lists below, pushed in this order, keep the held order
  local kept, back, fields, freed, seen = {}, {}, {}, {}, {}
  local back_groups, any_group = {}, false
  local died = 0
  local grouped = redis.call('EXISTS', group_keys.groups) == 1
  for from = #ids, 1, -1000 do
    local to = math.max(from - 999, 1)
    local entries = redis.call('HMGET', claims_key, unpack(ids, to, from))
    local groups = grouped and redis.call('HMGET', group_keys.groups, unpack(ids, to, from)) or {}
    for i = from, to, -1 do
      local id = ids[i]
      local c = not seen[id] and claim_of(entries[i - to + 1])
      if keep[id] then
        kept[#kept + 1] = id
      elseif c and c.hold ~= FREE then
        -- an id twice in the list (see guarantees.md, known gaps) is handed back once
        seen[id] = true
        local started = c.hold == RUNNING
        local group = c.group or groups[i - to + 1]
        end_group_hold(c, group_keys.held, group_keys.rotation, ready_key)
        c.hold = FREE
        -- not started as far as Redis knows: its start mark may have been lost in the crash
        if not started and crashed then c.suspect = 1 end
        local entry = claim_entry(c)
        local fate = started and crashed and dies(id, c)
        if fate then
          died = died + 1
          -- a new job under this id now: its entry went with the old one
          if fate == 'replaced' then entry = nil end
        else
          back[#back + 1] = id
          back_groups[#back] = group or false
          if group then any_group = true end
        end
        if entry then
          fields[#fields + 1] = id
          fields[#fields + 1] = entry
        else
          freed[#freed + 1] = id
        end
      end
    end
  end
  if #fields > 0 then call_in_chunks('HSET', claims_key, fields) end
  if #freed > 0 then call_in_chunks('HDEL', claims_key, freed) end
  if whole then
    -- the list rebuilt with the kept ids rather than an LREM per id, which made a release O(H^2)
    redis.call('DEL', active)
    if #kept > 0 then call_in_chunks('LPUSH', active, kept) end
  else
    redis.call('LTRIM', active, 0, -#ids - 1)
  end
  if any_group then
    push_by_group(back, back_groups, ready_key, group_keys.rotation, group_keys.held, true)
  elseif #back > 0 then
    drop_wake(ready_key)
    call_in_chunks('LPUSH', ready_key, back)
  end
  return #back, died
end
