--! include: _clock, _record, _claims, _ownership, _wake, _successors, _groups, _ticks
-- retry: a failed job goes back to DELAYED, due after its backoff.
-- KEYS[1] active: the caller's active list (active:<instance>)
-- KEYS[2] jobs: hash
-- KEYS[3] delayed: zset of marks (a grouped job waits in <delayed>:<g>, one of the default group in a
--   page <delayed>:\2<n> found by its record's due time: _delayed.lua)
-- KEYS[4] errors: hash
-- KEYS[5] stats: hash
-- KEYS[6] ready: list
-- KEYS[7] successors: hash
-- KEYS[8] claims: hash, id -> claim entry (see _claims.lua)
-- KEYS[9] groups-ready: zset, the rotation of groups with ready jobs (a parked group is put back)
-- KEYS[10] group-held: hash, group -> held jobs: lowered for a grouped job (see _groups.lua)
-- KEYS[11] schedules: hash: a job that is a tick of one of them ...
-- KEYS[12] schedule-outcomes: hash: ... gets the outcome 'retrying' (see _ticks.lua)
-- KEYS[13] groups: hash, id -> group (grouped jobs only): a successor taking the key writes its own
-- ARGV[1] id
-- ARGV[2] gen: the gen claimed
-- ARGV[3] error: the error text
-- ARGV[4] backoff-ms
-- ARGV[5] wake: the wake channel
-- ARGV[6] attempt: the attempt claimed (with the gen, names the claim: see ack.lua)
-- A replacing successor (a publish with replace that met the job held, see _successors.lua) takes the
-- key instead: the job is replaced, not retried; a non-replacing one waits for the job's end.
-- Returns 1 if scheduled again or replaced, 0 if the caller no longer held the job, or it was gone or replaced.
-- Cost: O(log N), and a copy of the record (its due time changes).
-- only the caller that still holds this claim may move the job (let_go_of_claim in _ownership.lua)
local held, c = let_go_of_claim(KEYS[1], ARGV[1], redis.call('HGET', KEYS[8], ARGV[1]), ARGV[2], ARGV[6])
if not held or not c or c.hold ~= RUNNING then return 0 end
end_group_hold(c, KEYS[10], KEYS[9], KEYS[6])
if successor_takes_over({ jobs = KEYS[2], delayed = KEYS[3], ready = KEYS[6], errors = KEYS[4], successors = KEYS[7],
                          claims = KEYS[8], groups = KEYS[13], rotation = KEYS[9], held = KEYS[10], wake = ARGV[5] },
                        ARGV[1], true) then return 1 end
c.hold = FREE
put_claim(KEYS[8], ARGV[1], c)
local old_head = head_score(KEYS[3])
local due = now_ms() + tonumber(ARGV[4])
local rec = redis.call('HGET', KEYS[2], ARGV[1])
local r = rec and decode(rec)
if r then
  r.due = due
  redis.call('HSET', KEYS[2], ARGV[1], encode(r))
end
-- a record rewritten by hand while it ran is scheduled as it is: the claim that meets it buries it
local group = redis.call('HGET', KEYS[13], ARGV[1])
if r or group then add_delayed(KEYS[3], group, { due, ARGV[1] }, due - tonumber(ARGV[4])) else add_unpaged(KEYS[3], due, ARGV[1]) end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
redis.call('HINCRBY', KEYS[5], 'retried', 1)
if has_schedules(KEYS[11]) then record_tick_outcome(KEYS[11], KEYS[12], KEYS[5], ARGV[1], 'retrying', due - tonumber(ARGV[4])) end
wake_if_head(KEYS[3], ARGV[5], due, old_head)
return 1
