--! include: _chunks, _claims
-- The rule for finishing a claim (ack, retry, bury): only the caller that still holds this claim
-- may. The claim (gen and attempt) is compared before the active list is touched, so an outcome
-- of an old claim never removes a newer claim's entry; then the id must leave the caller's active
-- list. A PREFETCHED job whose start mark has not arrived yet (it travels on another connection)
-- is read as started: attempts + 1, RUNNING. entry is the job's claim entry (nil or false when it
-- has none). Returns whether the caller held the claim, and the claim read (nil if none).
local function let_go_of_claim(active_key, id, entry, gen, attempt)
  local c = claim_of(entry)
  if c then as_started(c) end
  if c and (c.gen ~= gen or c.attempts ~= tonumber(attempt)) then return false, c end
  return redis.call('LREM', active_key, 1, id) == 1, c
end

-- The same rule for many claims at once (ack), in two steps. First, claim_to_let_go: how claim
-- (gen, attempt) stands against entry, read as let_go_of_claim reads it: nil when the entry is
-- another claim's (the id is left alone), else whether the claim is RUNNING once started, and the
-- claim read when the entry names a group (for end_group_hold; nil otherwise). A held entry with no
-- group (gen,ar,due: what an ack nearly always meets) is matched in place, no table built.
local function claim_to_let_go(entry, gen, attempt)
  if entry then
    local g, hold, attempts = plain_held_as_started(entry)
    if g then
      if g ~= gen or attempts ~= tonumber(attempt) then return nil end
      return hold == RUNNING, nil
    end
  end
  local c = claim_of(entry)
  if c then as_started(c) end
  if c and (c.gen ~= gen or c.attempts ~= tonumber(attempt)) then return nil end
  return c ~= nil and c.hold == RUNNING, c and c.group and c or nil
end

-- Then leave_active: one occurrence of each of ids (distinct; wanted holds each as a key, with any
-- value but nil) leaves the active list, the first
-- from its head, as let_go_of_claim's LREM takes it. The acked jobs are the oldest held, at the
-- head: they are looked for among the first #ids + ACTIVE_SLACK ids, and that head is rewritten once
-- (LTRIM of it up to the last one found, LPUSH of the ids it keeps, their order kept) instead of an
-- LREM per id; an id not there gets its own LREM. Returns the set of ids removed (id -> truthy).
-- Cost: O(#ids + ACTIVE_SLACK), plus O(A) per id not in that head.
local ACTIVE_SLACK = 64
local function leave_active(active_key, ids, wanted)
  local head = redis.call('LRANGE', active_key, 0, #ids + ACTIVE_SLACK - 1)
  local removed, left, last = {}, #ids, 0
  for i, id in ipairs(head) do
    if wanted[id] ~= nil and not removed[id] then
      removed[id] = i
      left = left - 1
      last = i
      if left == 0 then break end
    end
  end
  if last > 0 then
    -- last first: LPUSH puts each before the one pushed before it
    local kept = {}
    for i = last, 1, -1 do
      if removed[head[i]] ~= i then kept[#kept + 1] = head[i] end
    end
    redis.call('LTRIM', active_key, last, -1)
    if #kept > 0 then call_in_chunks('LPUSH', active_key, kept) end
  end
  if left > 0 then
    for _, id in ipairs(ids) do
      if not removed[id] and redis.call('LREM', active_key, 1, id) == 1 then removed[id] = true end
    end
  end
  return removed
end
