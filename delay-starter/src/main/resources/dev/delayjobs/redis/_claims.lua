--! include: _base36
-- The claim entry format, and the rule that keeps entries and records together.
-- A claim entry (claims hash, id -> entry) is the job's claim state, kept apart from the record so
-- that claiming, starting, recovering and counting held jobs never read or copy a payload:
--   gen,ar[,due[,group]]   present only while ar is not 0 (a job never started and not held has none)
--   gen        the gen of the record it belongs to (equal to the record's: a replacement or a requeue
--              deletes the entry)
--   ar         attempts * 8 + suspect * 4 + hold
--              attempts = handler runs started so far (counted when a consumer starts the job: at its
--              claim, or by its start mark when it waited in the consumer's prefetch buffer)
--              hold = 0 no consumer holds the job, 1 RUNNING, 2 PREFETCHED (taken into a consumer's
--              buffer, not started: no attempt counted)
--              suspect = 1 once the job was in the buffer of a consumer that crashed without its start
--              mark reaching Redis: the crash may have been its handler's, so from then on a worker
--              that takes it from a buffer waits for its start mark, and that crash counts toward
--              max-attempts (recover-expired.lua)
--   due        the record's due time, only while held: queue-stats reads the oldest waiting
--              PREFETCHED job from it
--   group      the job's group, only while held and only for a grouped job: the group whose held
--              count (group-held) its claim raised, and which the script that ends the hold lowers
--              (end_group_hold in _groups.lua); the rest of the entry, so it may hold commas
-- Every script that deletes a record, or puts a new job in its place (a replacing publish, a
-- requeue of a dead job, a successor taking the key), deletes its entry in the same call.

-- hold values (see ar above)
local FREE, RUNNING, PREFETCHED = 0, 1, 2

-- A claim entry as a table {gen, attempts, suspect, hold, due (base 36, or nil), group (or nil)}; nil when entry is
-- nil (false from HMGET) or not in the format.
local function claim_of(entry)
  if not entry then return nil end
  -- the held form without a group, what nearly every entry is, in one match
  local gen, ar, due = string.match(entry, '^([0-9a-z]+),([0-9a-z]+),(%-?[0-9a-z]+)$')
  local group
  if not gen then
    local rest
    gen, ar, rest = string.match(entry, '^([0-9a-z]+),([0-9a-z]+)(.*)$')
    if not gen then return nil end
    if rest ~= '' then
      local tail
      due, tail = string.match(rest, '^,(%-?[0-9a-z]+)(.*)$')
      if not due then return nil end
      if tail ~= '' then
        if string.sub(tail, 1, 1) ~= ',' or #tail < 2 then return nil end
        group = string.sub(tail, 2)
      end
    end
  end
  if not fits_one(ar) then return nil end
  local flags = tonumber(ar, 36)
  local low = flags % 8
  return { gen = gen, attempts = (flags - low) / 8, suspect = (low - low % 4) / 4, hold = low % 4, due = due, group = group }
end

local function flags_of(c)
  return c.attempts * 8 + c.suspect * 4 + c.hold
end

-- The entry to store for claim c, or nil when it is all zero (the entry is then deleted): the due
-- time only while held.
local function claim_entry(c)
  local flags = flags_of(c)
  if flags == 0 then return nil end
  local entry = c.gen .. ',' .. to36(flags)
  if c.hold ~= FREE and c.due then
    entry = entry .. ',' .. c.due
    if c.group then entry = entry .. ',' .. c.group end
  end
  return entry
end

-- Stores claim c of job id (or deletes its entry when all zero).
local function put_claim(claims_key, id, c)
  local entry = claim_entry(c)
  if entry then redis.call('HSET', claims_key, id, entry) else redis.call('HDEL', claims_key, id) end
end

-- The gen, hold and attempts of an entry of the common held form gen,ar,due (no group), read as
-- once started (as_started below), without the table claim_of builds: what an ack nearly always
-- meets. nil for an entry of any other form (read it with claim_of).
local function plain_held_as_started(entry)
  local gen, ar = string.match(entry, '^([0-9a-z]+),([0-9a-z]+),%-?[0-9a-z]+$')
  if not gen or not fits_one(ar) then return nil end
  local flags = tonumber(ar, 36)
  local low = flags % 8
  local hold, attempts = low % 4, (flags - low) / 8
  if hold == PREFETCHED then return gen, RUNNING, attempts + 1 end
  return gen, hold, attempts
end

-- Reads a PREFETCHED claim as it is once started (attempts + 1, RUNNING): what its claim handed
-- out, what its start mark makes of it, and how an outcome that overtook the mark sees it.
-- Returns whether it was PREFETCHED.
local function as_started(c)
  if c.hold ~= PREFETCHED then return false end
  c.attempts = c.attempts + 1
  c.hold = RUNNING
  return true
end
