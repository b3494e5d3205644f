--! include: _chunks, _clock, _claims, _full, _successors
-- recover: jobs held by consumer instances whose lease ran out (crashed, partitioned, frozen) go
-- back to the front of ready; a RUNNING job already started max-attempts times goes dead instead,
-- so a job that kills its consumer cannot loop forever. A PREFETCHED job goes back with no attempt
-- spent, marked suspect (see _claims.lua): its handler may have started with the start mark lost in
-- the crash, so that crash counts toward max-attempts (attempts + suspect) if consumers keep
-- stopping while it runs.
-- With ARGV[3] set, releases that one instance's jobs at once, whatever its lease, and buries
-- none and marks none suspect: at graceful shutdown (ARGV[4] = 1, the instance is forgotten too), or to hand back jobs a
-- live instance holds but no longer handles, after a claim whose reply was lost (ARGV[4] = 0,
-- the ids in ARGV[8..] are still being handled and stay).
-- Reads and writes claim entries (see _claims.lua), never a record: what a job costs here does not
-- depend on its payload (a successor that takes a buried job's key is written, see below).
-- KEYS[1] instances (zset)   KEYS[2] workers (hash)   KEYS[3] ready (list)   KEYS[4] jobs (hash)
-- KEYS[5] dead (zset)        KEYS[6] errors (hash)    KEYS[7] stats (hash)   KEYS[8] fences (hash)
-- KEYS[9] forgotten fences (zset: instance -> when its fence may go)
-- KEYS[10] delayed (zset)     KEYS[11] successors (hash)   KEYS[12] claims (hash)
-- KEYS[13..] the active:<instance> lists this call may touch: the instance's to release, or those of
-- the instances the caller found expired in KEYS[1] just before (consumer-instances.lua). An
-- expired instance whose list is not declared (its lease ran out after that read) is left for the
-- next call.
-- ARGV[1] prefix of the active lists
-- ARGV[2] max attempts   ARGV[3] instance to release, or ''   ARGV[4] forget the instance (0/1)
-- ARGV[5] claim fence, when releasing: claims of a lower epoch are refused from now on (see
-- claim.lua). The caller names the epoch, so that a resent copy of this call raises the fence no
-- further; the fence only ever rises (a lower one leaves it as it is, and the reply says where it is).
-- ARGV[6] ms a forgotten instance's fence is kept
-- ARGV[7] most held ids to go through in this call when recovering expired instances (a release
-- goes through all of its instance's): an instance holding more has the tail of its active list
-- handed back (its order kept: the rest will go in front of it) and stays for the next call
-- ARGV[8..] ids to keep
-- An instance forgotten keeps its fence, for ARGV[6] ms: when its lease ran out it may be alive (a
-- long pause), and at shutdown its claimer may have a claim on its way; either must stay refused. A
-- release without forgetting (the instance is live) keeps its fence for good again. Every call deletes
-- up to 100 fences whose time ran out, so fences of instance ids that never return do not pile up.
-- Runs when Redis is full (run_even_when_full in _full.lua), as the claims that drain it do.
-- Returns {jobs sent back to ready, jobs buried, instances removed, the released instance's fence,
-- 1 when expired instances' ids are left for another call else 0}.
-- Cost: O(H) for H held ids gone through (the instances' running and prefetched jobs), at most
-- ARGV[7] when recovering expired instances, plus O(log F) per fence deleted (at most 100);
-- independent of the backlog and of payload sizes.
-- A job sent back to ready keeps its successor (a keyed publish that met it held, see _successors.lua);
-- one buried here is counted dead and its successor, if any, takes the key instead (no wake: the
-- sweep that runs this transfers it, at most one sweep later than its due time).
run_even_when_full(KEYS[12])
local now = now_ms()
local max_attempts = tonumber(ARGV[2])
local releasing = ARGV[3] ~= ''
local instances
if releasing then
  instances = { ARGV[3] }
else
  instances = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)
end
local declared = {}
for i = 13, #KEYS do declared[KEYS[i]] = true end
local q = { jobs = KEYS[4], delayed = KEYS[10], ready = KEYS[3], errors = KEYS[6], successors = KEYS[11], claims = KEYS[12] }
local keep = {}
for i = 8, #ARGV do keep[ARGV[i]] = true end
local fence_kept_until = now + tonumber(ARGV[6])
local budget = releasing and math.huge or tonumber(ARGV[7])
local requeued, buried, forgotten, fence, more = 0, 0, 0, 0, 0
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
    -- walked last first, so that both lists below, pushed in this order, keep the held order
    local kept, back, fields, freed, seen = {}, {}, {}, {}, {}
    for from = #ids, 1, -1000 do
      local to = math.max(from - 999, 1)
      local entries = redis.call('HMGET', KEYS[12], unpack(ids, to, from))
      for i = from, to, -1 do
        local id = ids[i]
        local c = not seen[id] and claim_of(entries[i - to + 1])
        if keep[id] then
          kept[#kept + 1] = id
        elseif c and c.hold ~= FREE then
          -- an id twice in the list (see guarantees.md, known gaps) is handed back once
          seen[id] = true
          local started = c.hold == RUNNING
          c.hold = FREE
          -- not started as far as Redis knows: its start mark may have been lost in the crash
          if not started and not releasing then c.suspect = 1 end
          local entry = claim_entry(c)
          if started and not releasing and c.attempts + c.suspect >= max_attempts then
            local why = 'consumer ' .. instance .. ' stopped during attempt ' .. c.attempts
            if c.suspect == 1 then
              why = why .. ', after an earlier consumer stopped while holding it with no start mark recorded'
            end
            redis.call('HINCRBY', KEYS[7], 'dead', 1)
            if successor_takes_over(q, id, false) then
              -- a new job under this id now: its entry went with the old one
              entry = nil
            else
              redis.call('ZADD', KEYS[5], now, id)
              redis.call('HSET', KEYS[6], id, why)
            end
            buried = buried + 1
          else
            back[#back + 1] = id
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
    if #fields > 0 then call_in_chunks('HSET', KEYS[12], fields) end
    if #freed > 0 then call_in_chunks('HDEL', KEYS[12], freed) end
    if more == 1 then
      redis.call('LTRIM', active, 0, -#ids - 1)
    else
      -- the list rebuilt with the kept ids rather than an LREM per id, which made a release O(H^2)
      redis.call('DEL', active)
      if #kept > 0 then call_in_chunks('LPUSH', active, kept) end
    end
    if #back > 0 then call_in_chunks('LPUSH', KEYS[3], back) end
    requeued = requeued + #back
    if releasing then
      fence = tonumber(redis.call('HGET', KEYS[8], instance) or '0')
      local wanted = tonumber(ARGV[5])
      if wanted > fence then
        redis.call('HSET', KEYS[8], instance, wanted)
        fence = wanted
      end
    end
    if more == 1 then
      -- left for the next call, its lease still expired
    elseif not releasing or ARGV[4] == '1' then
      redis.call('ZREM', KEYS[1], instance)
      redis.call('HDEL', KEYS[2], instance)
      if redis.call('HEXISTS', KEYS[8], instance) == 1 then redis.call('ZADD', KEYS[9], fence_kept_until, instance) end
      forgotten = forgotten + 1
    else
      redis.call('ZREM', KEYS[9], instance)
    end
  end
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[9], '-inf', now, 'LIMIT', 0, 100)
if #gone > 0 then
  redis.call('HDEL', KEYS[8], unpack(gone))
  redis.call('ZREM', KEYS[9], unpack(gone))
end
return { requeued, buried, forgotten, fence, more }
