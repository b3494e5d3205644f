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
-- Only the caller that still holds the claim may finish it (let_go_of_claim in _ownership.lua): a
-- consumer presumed dead whose jobs were recovered and claimed elsewhere must not delete them.
-- The claim entries are read with one HMGET and deleted with the records with one HDEL per hash:
-- per job, only the LREM.
-- A deleted job's successor (a keyed publish that met it held, see _successors.lua) then takes its key.
-- Returns how many jobs were deleted. Cost: O(1) per job (a tick's outcome included) plus O(active) for LREM, O(log N) per successor.
local ids = {}
for i = 2, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
local entries = redis.call('HMGET', KEYS[8], unpack(ids))
-- a batch may hold two claims of one job (one whose reply was lost, and the claim after it):
-- duplicates are told by claim (id, gen, attempt), not by id, so the stale one cannot hide the valid one
local done, seen = {}, {}
for k, id in ipairs(ids) do
  local claim = id .. ',' .. ARGV[3 * k] .. ',' .. ARGV[3 * k + 1]
  if not seen[claim] then
    seen[claim] = true
    local held, c = let_go_of_claim(KEYS[1], id, entries[k], ARGV[3 * k], ARGV[3 * k + 1])
    if held and c and c.hold == RUNNING then
      end_group_hold(c, KEYS[11], KEYS[10], KEYS[6])
      done[#done + 1] = id
    end
  end
end
if #done > 0 then
  call_in_chunks('HDEL', KEYS[2], done)
  call_in_chunks('HDEL', KEYS[8], done)
  if redis.call('EXISTS', KEYS[9]) == 1 then call_in_chunks('HDEL', KEYS[9], done) end
  call_in_chunks('HDEL', KEYS[3], done)
  redis.call('HINCRBY', KEYS[4], 'completed', #done)
  if has_schedules(KEYS[12]) then
    local now = now_ms()
    for _, id in ipairs(done) do record_tick_outcome(KEYS[12], KEYS[13], KEYS[4], id, 'handled', now) end
  end
  successors_take_over({ jobs = KEYS[2], delayed = KEYS[5], ready = KEYS[6], errors = KEYS[3], successors = KEYS[7],
                         claims = KEYS[8], groups = KEYS[9], rotation = KEYS[10], held = KEYS[11], wake = ARGV[1] }, done)
end
return #done
