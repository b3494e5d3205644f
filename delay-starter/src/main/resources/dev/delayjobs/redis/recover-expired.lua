--! include: _clock, _full, _successors, _hand_back, _fences, _ticks
-- recover-expired: jobs held by consumer instances whose lease ran out (crashed, partitioned, frozen)
-- go back to the front of ready; a RUNNING job already started max-attempts times goes dead instead,
-- so a job that kills its consumer cannot loop forever. A PREFETCHED job goes back with no attempt
-- spent, marked suspect (see _claims.lua): its handler may have started with the start mark lost in
-- the crash, so that crash counts toward max-attempts (attempts + suspect) if consumers keep
-- stopping while it runs. The instances are forgotten; each keeps its fence for ARGV[3] ms (see
-- _fences.lua), and every call deletes up to 100 fences whose time ran out.
-- Reads and writes claim entries (_hand_back.lua), never a record: what a job costs here does not
-- depend on its payload (a successor that takes a buried job's key is written, see below).
-- KEYS[1] instances: zset, instance -> lease deadline
-- KEYS[2] workers: hash, instance -> concurrency
-- KEYS[3] ready: list
-- KEYS[4] jobs: hash
-- KEYS[5] dead: zset
-- KEYS[6] errors: hash
-- KEYS[7] stats: hash
-- KEYS[8] fences: hash, instance -> oldest claim epoch accepted (see claim.lua)
-- KEYS[9] forgotten-fences: zset, instance -> when its fence may go
-- KEYS[10] delayed: zset
-- KEYS[11] successors: hash
-- KEYS[12] claims: hash, id -> claim entry
-- KEYS[13] groups-ready: zset, the rotation of groups with ready jobs (see _groups.lua)
-- KEYS[14] group-held: hash, group -> held jobs: lowered for each grouped job handed back or buried
-- KEYS[15] schedules: hash: a job buried here that is a tick of one of them ...
-- KEYS[16] schedule-outcomes: hash: ... gets the outcome 'dead' (see _ticks.lua)
-- KEYS[17] groups: hash, id -> group (grouped jobs only): a successor taking a buried job's key writes its own;
--   a job handed back that was claimed without a group limit goes to its group's list
-- KEYS[18..] active: the active:<instance> lists of the instances the caller found expired in
--   KEYS[1] just before (expired-instances.lua). An expired instance whose list is not
--   declared (its lease ran out after that read) is left for the next call.
-- ARGV[1] active-prefix: prefix of the active lists
-- ARGV[2] max-attempts
-- ARGV[3] fence-kept-ms: how long a forgotten instance's fence is kept
-- ARGV[4] most-held-ids: most held ids to go through in this call: an instance holding more has the
--   tail of its active list handed back (its order kept: the rest will go in front of it) and stays
--   for the next call
-- Runs when Redis is full (run_even_when_full in _full.lua), as the claims that drain it do.
-- Returns {jobs sent back to ready, jobs buried, instances removed, 1 when expired instances' ids
-- are left for another call else 0}.
-- Cost: O(log I + 100) for the expired instances, O(H) for H held ids gone through (the instances'
-- running and prefetched jobs), at most ARGV[4], plus O(log F) per fence deleted (at most 100);
-- independent of the backlog and of payload sizes.
-- A job sent back to ready keeps its successor (a keyed publish that met it held, see
-- _successors.lua); one buried here is counted dead and its successor, if any, takes the key
-- instead (no wake: the sweep that runs this transfers it, at most one sweep later than its due time).
run_even_when_full(KEYS[12])
local now = now_ms()
local max_attempts = tonumber(ARGV[2])
local instances = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)
local declared = {}
for i = 18, #KEYS do declared[KEYS[i]] = true end
local q = { jobs = KEYS[4], delayed = KEYS[10], ready = KEYS[3], errors = KEYS[6], successors = KEYS[11], claims = KEYS[12],
            groups = KEYS[17], rotation = KEYS[13], held = KEYS[14] }
local fence_kept_until = now + tonumber(ARGV[3])
local budget = tonumber(ARGV[4])
local requeued, buried, forgotten, more = 0, 0, 0, 0
for _, instance in ipairs(instances) do
  local active = ARGV[1] .. instance
  local held = declared[active] and more == 0 and redis.call('LLEN', active) or 0
  local take = math.min(held, budget)
  if take < held then more = 1 end
  -- an instance whose ids are all left for the next call is not touched
  if declared[active] and (more == 0 or take > 0) then
    local ids
    if take == held then
      ids = redis.call('LRANGE', active, 0, -1)
    else
      -- the tail only, and the instance stays: the next call hands back the rest, in front of these
      ids = redis.call('LRANGE', active, -take, -1)
    end
    budget = budget - #ids
    local function dies(id, c)
      if c.attempts + c.suspect < max_attempts then return false end
      local why = 'consumer ' .. instance .. ' stopped during attempt ' .. c.attempts
      if c.suspect == 1 then
        why = why .. ', after an earlier consumer stopped while holding it with no start mark recorded'
      end
      redis.call('HINCRBY', KEYS[7], 'dead', 1)
      if has_schedules(KEYS[15]) then record_tick_outcome(KEYS[15], KEYS[16], KEYS[7], id, 'dead', now) end
      if successor_takes_over(q, id, false) then return 'replaced' end
      redis.call('ZADD', KEYS[5], now, id)
      redis.call('HSET', KEYS[6], id, why)
      return 'dead'
    end
    local back, died = hand_back(KEYS[12], KEYS[3], { rotation = KEYS[13], held = KEYS[14], groups = KEYS[17] }, active, ids, more == 0, {}, true, dies)
    requeued = requeued + back
    buried = buried + died
    -- with more, left for the next call, its lease still expired
    if more == 0 then
      forget_instance(KEYS[1], KEYS[2], KEYS[8], KEYS[9], instance, fence_kept_until)
      forgotten = forgotten + 1
    end
  end
end
drop_old_fences(KEYS[8], KEYS[9], now)
return { requeued, buried, forgotten, more }
