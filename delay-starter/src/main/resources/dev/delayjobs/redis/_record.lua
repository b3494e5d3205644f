-- Shared by every script (prepended at load time): the job record format, the claim entry format
-- and the server clock.
-- A record (jobs hash, id -> record) is one string: gen,due,age|payload   (numbers in base 36, lower case)
--   gen        publish sequence number of the queue: tells a replacement from the job a consumer claimed
--              (an opaque token: only compared for equality)
--   due        due time, epoch ms: the Redis server's clock plus the delay, or the instant given to
--              publishAt (read with the publisher's clock)
--   age        due - publishedAt in milliseconds (may be negative); publishedAt is on the Redis clock
--   payload    the job's JSON, untouched (never decoded here, so numbers keep their precision)
-- Base 36 keeps the header to about 18 characters (a 100-byte payload then fits a 128-byte allocation).
-- A claim entry (claims hash, id -> entry) is the job's claim state, kept apart from the record so
-- that claiming, starting, recovering and counting held jobs never read or copy a payload:
--   gen,ar[,due]   present only while ar is not 0 (a job never started and not held has none)
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
--              max-attempts (recover.lua)
--   due        the record's due time, only while held: queue-stats reads the oldest waiting
--              PREFETCHED job from it
-- Every script that deletes a record, or puts a new job in its place (a replacing publish, a
-- requeue of a dead job, a successor taking the key), deletes its entry in the same call.

-- Runs cmd on key with every value of list, 1000 at a time: unpack of several thousand values
-- overflows Lua's stack (about 8000), and a script that fails there has already popped its jobs.
local function call_in_chunks(cmd, key, list)
  for i = 1, #list, 1000 do
    redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list)))
  end
end

-- Redisson resends a script after a response timeout (its retryAttempts), and after a stall every
-- copy runs. A state change whose repetition would do harm (publish, claim, cancel) is named by a
-- request id: its first run leaves a short-lived memo of its reply, and a copy returns that instead
-- of running again. The memo lives MEMO_MS, defined on the line LuaScript puts before this file:
-- the longest time Redisson may resend a copy under the client's timeout and retry settings, plus
-- a margin for a stalled Redis (RequestMemo.java).

local function replayed(memo_key)
  local memo = redis.call('GET', memo_key)
  if memo then return cjson.decode(memo) end
  return nil
end

local function remember(memo_key, reply)
  redis.call('SET', memo_key, cjson.encode(reply), 'PX', MEMO_MS)
  return reply
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The digits of n >= 0 in base 36 as character codes, most significant first: built on the stack
-- through tail calls and turned into one string by a single string.char, about 3x faster than
-- collecting digit strings in a table (publish writes three numbers per job).
local function digits36(n, ...)
  local d = n % 36
  local code = d + 48
  if d > 9 then code = code + 39 end
  if n < 36 then return code, ... end
  return digits36((n - d) / 36, code, ...)
end

local function to36(n)
  n = tonumber(n)
  if n < 0 then return '-' .. string.char(digits36(-n)) end
  return string.char(digits36(n))
end

local function from36(s)
  if string.sub(s, 1, 1) == '-' then return -tonumber(string.sub(s, 2), 36) end
  return tonumber(s, 36)
end

-- Each number has at most 12 base-36 digits (36^12 < 2^63), as StoredJob.parse requires: a record
-- Java could not read never reaches a consumer; claim buries it as not in the job format.
local function fits_one(field)
  local n = #field
  return n <= 12 or (n == 13 and string.byte(field, 1) == 45) -- 45: '-'
end

local function fits(gen, due, age)
  return fits_one(gen) and fits_one(due) and fits_one(age)
end

-- hold values (see ar above)
local FREE, RUNNING, PREFETCHED = 0, 1, 2

-- A claim entry as a table {gen, attempts, suspect, hold, due (base 36, or nil)}; nil when entry is
-- nil (false from HMGET) or not in the format.
local function claim_of(entry)
  if not entry then return nil end
  local gen, ar, due = string.match(entry, '^([%d%l]+),([%d%l]+),?(%-?[%d%l]*)$')
  if not gen or not fits_one(ar) then return nil end
  local flags = tonumber(ar, 36)
  local low = flags % 8
  if due == '' then due = nil end
  return { gen = gen, attempts = (flags - low) / 8, suspect = (low - low % 4) / 4, hold = low % 4, due = due }
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
  if c.hold ~= FREE and c.due then entry = entry .. ',' .. c.due end
  return entry
end

-- Stores claim c of job id (or deletes its entry when all zero).
local function put_claim(claims_key, id, c)
  local entry = claim_entry(c)
  if entry then redis.call('HSET', claims_key, id, entry) else redis.call('HDEL', claims_key, id) end
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

local function decode(rec)
  local gen, due, age, payload = string.match(rec, '^([%d%l]+),(%-?[%d%l]+),(%-?[%d%l]+)|(.*)$')
  if gen and fits(gen, due, age) then
    local r = { gen = gen }
    r.due = from36(due)
    r.published = r.due - from36(age)
    r.payload = payload
    return r
  end
  return nil
end

-- gen is a number for a new record (HINCRBY), or the token read from an existing one
local function encode(r)
  local gen = r.gen
  if type(gen) == 'number' then gen = to36(gen) end
  local due = tonumber(r.due)
  return gen .. ',' .. to36(due) .. ',' .. to36(due - tonumber(r.published)) .. '|' .. r.payload
end

-- The record of a new job (gen from HINCRBY), written straight: publish's per-job work, where
-- building a table for encode() costs more than the rest of the record.
local function new_record(gen, due, published, payload)
  return to36(gen) .. ',' .. to36(due) .. ',' .. to36(due - published) .. '|' .. payload
end

-- The gen and due (base 36) of a record, matched at its start so that the payload is never copied
-- (claim's and queue-stats' read); nil when rec is not in the job format.
local function record_header(rec)
  local gen, due, age = string.match(rec, '^([%d%l]+),(%-?[%d%l]+),(%-?[%d%l]+)|')
  if gen and fits(gen, due, age) then return gen, due end
  return nil
end

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

-- Tells the queue's timers that an earlier due time exists, only when it beats the current head.
local function wake_if_head(delayed_key, channel, due, old_head)
  if old_head == nil or tonumber(due) < old_head then
    -- pcall: a wake that cannot be sent (an ACL user without channel permission, say) must not
    -- fail the state change it announces; the sweep moves the job anyway
    redis.pcall('PUBLISH', channel, due)
  end
end

local function head_score(delayed_key)
  local head = redis.call('ZRANGE', delayed_key, 0, 0, 'WITHSCORES')
  if head[2] then return tonumber(head[2]) end
  return nil
end

-- A full Redis (used memory over maxmemory, policy noeviction) refuses a script's first write that
-- may add data (SET, HSET, HINCRBY, ZADD, RPUSH...), but nothing once the script has written: it is
-- never stopped midway (Redis 6.2 and 7 alike). Publish is refused so, before it stores anything.
-- The scripts that keep a queue draining (heartbeat, claim, start, recover) must run when full, as
-- only draining frees memory: they call this first. HDEL of a field no hash holds (ids are never
-- empty) is a write that adds nothing, after which Redis lets the script run whole.
local function run_even_when_full(hash_key)
  redis.call('HDEL', hash_key, '')
end

-- Successors: a keyed publish that meets its job held by a consumer (RUNNING or PREFETCHED) is kept
-- in the queue's successors hash, id -> replace flag ('0' or '1') followed by the record the publish
-- built (its own gen, due and publish times, no attempt). It takes the key when the held job ends
-- (acked or buried); a replacing one also when the held job is retried. A recovered job keeps it.
-- q names the keys: { jobs, delayed, ready, errors, successors, claims, wake (channel, or nil: no wake) }.
local QUEUED = 3 -- publish status: stored as the successor of the held job

-- A publish of record for the held job id: the successor, or, while one waits, a publish onto it,
-- which keeps it, or replaces it when replace is '1' (the rules of a publish onto a waiting job).
-- Returns the publish status: QUEUED, or 0 when the waiting successor was kept. O(1).
local function queue_successor(successors_key, id, record, replace)
  if redis.call('HSETNX', successors_key, id, replace .. record) == 1 then return QUEUED end
  if replace ~= '1' then return 0 end
  redis.call('HSET', successors_key, id, '1' .. record)
  return QUEUED
end

-- The stored successor waiting takes the key of id: its record becomes the job (a new gen, no
-- attempt, no claim entry), DELAYED or READY by its due time, and the job's error is cleared. O(log N).
local function take_over(q, id, waiting)
  redis.call('HDEL', q.successors, id)
  local record = string.sub(waiting, 2)
  local due = from36(string.match(record, '^[%d%l]+,(%-?[%d%l]+),'))
  redis.call('HSET', q.jobs, id, record)
  -- a new job: no attempt, nobody holds it
  redis.call('HDEL', q.claims, id)
  redis.call('HDEL', q.errors, id)
  q.now = q.now or now_ms()
  if due <= q.now then
    redis.call('RPUSH', q.ready, id)
  else
    local old_head = head_score(q.delayed)
    redis.call('ZADD', q.delayed, due, id)
    if q.wake then wake_if_head(q.delayed, q.wake, due, old_head) end
  end
end

-- When the held job id is retried (replacing_only: only a replacing successor takes the key) or
-- buried (any successor does). Returns whether one took it. O(log N).
local function successor_takes_over(q, id, replacing_only)
  local waiting = redis.call('HGET', q.successors, id)
  if not waiting or (replacing_only and string.sub(waiting, 1, 1) ~= '1') then return false end
  take_over(q, id, waiting)
  return true
end

-- After the jobs ids were deleted (acked): each one's successor, if any, takes its key. One HMGET
-- per 1000 ids, so an ack without successors costs one command more.
local function successors_take_over(q, ids)
  for from = 1, #ids, 1000 do
    local upto = math.min(from + 999, #ids)
    local waiting = redis.call('HMGET', q.successors, unpack(ids, from, upto))
    for i = from, upto do
      if waiting[i - from + 1] then take_over(q, ids[i], waiting[i - from + 1]) end
    end
  end
end
