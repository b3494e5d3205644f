--! include: _clock, _claims, _ownership, _successors, _groups, _ticks
-- bury: a job that exhausted its attempts, or cannot be read, goes to the dead set with its error.
-- KEYS[1] active: the caller's active list (active:<instance>)
-- KEYS[2] jobs: hash
-- KEYS[3] dead: zset
-- KEYS[4] errors: hash
-- KEYS[5] stats: hash
-- KEYS[6] delayed: zset
-- KEYS[7] ready: list
-- KEYS[8] successors: hash
-- KEYS[9] claims: hash, id -> claim entry (see _claims.lua)
-- KEYS[10] groups-ready: zset, the rotation of groups with ready jobs (a parked group is put back)
-- KEYS[11] group-held: hash, group -> held jobs: lowered for a grouped job (see _groups.lua)
-- KEYS[12] schedules: hash: a job that is a tick of one of them ...
-- KEYS[13] schedule-outcomes: hash: ... gets the outcome 'dead' (see _ticks.lua)
-- KEYS[14] groups: hash, id -> group (grouped jobs only): a successor taking the key writes its own
-- ARGV[1] id
-- ARGV[2] gen: the gen claimed
-- ARGV[3] error: the error text
-- ARGV[4] attempt: the attempt claimed (see ack.lua)
-- ARGV[5] wake: the wake channel
-- The claim is read from and released in its claim entry; the record is not read.
-- A job with a successor (a keyed publish that met it held, see _successors.lua) is counted dead but
-- does not stay in the dead set: the job ended, and its successor takes the key.
-- Returns 1 if buried, 0 if the caller no longer held the job, or it was gone or replaced. Cost: O(log N).
-- only the caller that still holds this claim may move the job (let_go_of_claim in _ownership.lua)
local held, c = let_go_of_claim(KEYS[1], ARGV[1], redis.call('HGET', KEYS[9], ARGV[1]), ARGV[2], ARGV[4])
if not held or not c or c.hold ~= RUNNING then return 0 end
end_group_hold(c, KEYS[11], KEYS[10], KEYS[7])
c.hold = FREE
put_claim(KEYS[9], ARGV[1], c)
redis.call('HINCRBY', KEYS[5], 'dead', 1)
if has_schedules(KEYS[12]) then record_tick_outcome(KEYS[12], KEYS[13], KEYS[5], ARGV[1], 'dead', now_ms()) end
if successor_takes_over({ jobs = KEYS[2], delayed = KEYS[6], ready = KEYS[7], errors = KEYS[4], successors = KEYS[8],
                          claims = KEYS[9], groups = KEYS[14], rotation = KEYS[10], held = KEYS[11], wake = ARGV[5] },
                        ARGV[1], false) then return 1 end
redis.call('ZADD', KEYS[3], now_ms(), ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
return 1
