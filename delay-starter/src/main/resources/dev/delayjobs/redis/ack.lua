--! include: _chunks, _claims, _ownership, _successors, _groups, _ticks
-- ack: jobs whose handler succeeded are done and deleted.
-- KEYS[1] active: the caller's active list (active:<instance>)
-- KEYS[2] jobs: hash
-- KEYS[3] errors: hash
-- KEYS[4] stats: hash
-- KEYS[5] delayed: zset
-- KEYS[6] ready: list
-- KEYS[7] successors: hash
-- KEYS[8] claims: hash, id -> claim entry (see _claims.lua): the claim is read from it, never from
--   the record, so an ack never copies a payload
-- KEYS[9] groups: hash, id -> group (grouped jobs only): deleted with the job (a successor taking
--   the key writes its own)
-- KEYS[10] groups-ready: zset, the rotation of groups with ready jobs (a parked group is put back)
-- KEYS[11] group-held: hash, group -> held jobs: lowered for each grouped job acked (see _groups.lua)
-- KEYS[12] schedules: hash, name -> spec and payload: an acked job that is a tick of one of them
-- KEYS[13] schedule-outcomes: hash: ... gets the outcome 'handled' (see _ticks.lua)
-- ARGV[1] wake: the wake channel
-- ARGV[2..] id, gen, attempt: the claims being finished. The gen tells a replacement (left alone);
--   the attempt tells a later claim of the same job, after a recovery.
-- Only the caller that still holds the claim may finish it (claim_to_let_go and leave_active in
-- _ownership.lua, the rule of let_go_of_claim for a batch): a consumer presumed dead whose jobs were
-- recovered and claimed elsewhere must not delete them.
-- No command per job: the claim entries are read with one HMGET (per 1000 ids), the ids leave the
-- active list in one rewrite of its head (an LREM only for an id not found there), the records,
-- entries and errors are deleted with one HDEL per hash (errors, groups and successors only when
-- those hashes exist).
-- A deleted job's successor (a keyed publish that met it held, see _successors.lua) then takes its key.
-- Returns how many jobs were deleted. Cost: O(1) per job (a tick's outcome included) plus O(A) per id
-- not among the first #ids + 64 of the active list (A its length), O(log N) per successor.
local ids = {}
for i = 2, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
local entries = redis.call('HMGET', KEYS[8], unpack(ids, 1, math.min(#ids, 1000)))
for from = 1001, #ids, 1000 do
  local part = redis.call('HMGET', KEYS[8], unpack(ids, from, math.min(from + 999, #ids)))
  for i = 1, #part do entries[from + i - 1] = part[i] end
end
-- a batch may hold two claims of one job (one whose reply was lost, and the claim after it): each
-- is compared with the entry, so the stale one cannot hide the valid one; an id lets go once
local leaving, running, grouped = {}, {}, {}
for k, id in ipairs(ids) do
  if running[id] == nil then
    local is_running, c = claim_to_let_go(entries[k], ARGV[3 * k], ARGV[3 * k + 1])
    if is_running ~= nil then
      leaving[#leaving + 1] = id
      running[id] = is_running
      grouped[id] = c
    end
  end
end
if #leaving == 0 then return 0 end
local removed = leave_active(KEYS[1], leaving, running)
local done = {}
for _, id in ipairs(leaving) do
  if removed[id] and running[id] then
    if grouped[id] then end_group_hold(grouped[id], KEYS[11], KEYS[10], KEYS[6]) end
    done[#done + 1] = id
  end
end
if #done > 0 then
  call_in_chunks('HDEL', KEYS[2], done)
  call_in_chunks('HDEL', KEYS[8], done)
  redis.call('HINCRBY', KEYS[4], 'completed', #done)
  -- a queue with no grouped job, no error, no successor and no schedule (the common case) pays one EXISTS
  if redis.call('EXISTS', KEYS[9], KEYS[3], KEYS[7], KEYS[12]) == 0 then return #done end
  if redis.call('EXISTS', KEYS[9]) == 1 then call_in_chunks('HDEL', KEYS[9], done) end
  if redis.call('EXISTS', KEYS[3]) == 1 then call_in_chunks('HDEL', KEYS[3], done) end
  if has_schedules(KEYS[12]) then
    local now = now_ms()
    for _, id in ipairs(done) do record_tick_outcome(KEYS[12], KEYS[13], KEYS[4], id, 'handled', now) end
  end
  if redis.call('EXISTS', KEYS[7]) == 1 then
    successors_take_over({ jobs = KEYS[2], delayed = KEYS[5], ready = KEYS[6], errors = KEYS[3], successors = KEYS[7],
                           claims = KEYS[8], groups = KEYS[9], rotation = KEYS[10], held = KEYS[11], wake = ARGV[1] }, done)
  end
end
return #done
