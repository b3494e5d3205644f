--! include: _chunks, _memo, _clock, _base36, _record, _claims, _full, _groups, _delayed
-- claim: a consumer takes up to n ready jobs; the first `start` of them become RUNNING and count an
-- attempt (workers wait for them), the others become PREFETCHED: they wait in the consumer's buffer
-- and count no attempt until their start mark (start.lua). All are remembered in the consumer
-- instance's active list until acked, retried or recovered. A claim writes only claim entries (see
-- _claims.lua); records are read, to be returned, never rewritten.
-- KEYS[1] ready: list
-- KEYS[2] active: the instance's active list (active:<instance>)
-- KEYS[3] jobs: hash
-- KEYS[4] delayed: zset of marks (group g's delayed jobs are in <delayed>:<g>, the default group's in
--   pages <delayed>:\2<n>, looked up by the due time of the record: _delayed.lua); an id of a
--   ready list that is delayed (rescheduled later while READY) is dropped
-- KEYS[5] dead: zset
-- KEYS[6] errors: hash
-- KEYS[7] stats: hash
-- KEYS[8] instances: zset, instance -> lease deadline
-- KEYS[9] fences: hash, instance -> oldest claim epoch accepted
-- KEYS[10] memo: the request's memo bucket (hash; see replayed() in _memo.lua): a resent copy takes
--   no more jobs; it returns the jobs the first run took (their ids are kept, the records read again)
-- KEYS[11] control: hash (see pause.lua)
-- KEYS[12] rate-log: zset, one member per job started, score = when
-- KEYS[13] claims: hash, id -> claim entry (see _claims.lua)
-- KEYS[14] groups: hash, id -> group (grouped jobs only; see _groups.lua)
-- KEYS[15] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[16] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] n: most jobs to take
-- ARGV[2] instance: the instance id
-- ARGV[3] lease-ms
-- ARGV[4] epoch: the claim epoch
-- ARGV[5] longest: longest record this consumer accepts (bytes): a longer one, from a publisher
--   with a larger delay.max-payload-size or written by hand, goes to the dead set unread
-- ARGV[6] permits: configured rate limit, permits per window ('0': none)
-- ARGV[7] window-ms: its window
-- ARGV[8] partition: index of this partition
-- ARGV[9] partitions: partition count of the queue: each partition lets its share of the queue's
--   permits start (permits / count, the first permits % count partitions one more)
-- ARGV[10] start: how many of the jobs taken start now (n: all of them)
-- ARGV[11] group-limit: most jobs of one group held at once, all instances ('0': no limit)
-- ARGV[last] memo: the request's field in the memo bucket (_memo.lua)
-- A paused queue (control has 'paused') gives nothing. A rate limit (the runtime one in control, else the
-- configured one) lets at most `permits` jobs start in any window, all instances together: the rate log
-- keeps when each of the last window's jobs was claimed.
-- A claim whose epoch is below the instance's fence takes nothing and returns {server now, -2, fence}:
-- either its reply was lost (the client gave up on it and has since handed back what it did not
-- handle, setting the fence) and it only reaches Redis now, on another connection, or its claimer
-- was stopped (shutdown raises the fence); the jobs it would take have no worker waiting. A live
-- claimer told so claims again above that fence.
-- The instance is entered in instances if missing (it may have been presumed dead and removed),
-- so that no active list exists without a lease that would let another instance recover it.
-- Ready's head may be the wake marker (_wake_marker.lua): dropped before the groups are visited, or
-- popped as a stale id (it has no record). Ready may hold stale ids (a job cancelled, rescheduled or
-- replaced after it became ready): an id
-- whose record is gone, delayed, dead or already held (its claim entry says so) is dropped here. A record that is not in
-- the job format (written by hand, or corrupted) goes to the dead set, never to a consumer.
-- The ready ids are popped, read and checked a batch at a time (LPOP count, HMGET of records and of
-- claim entries, ZMSCORE: Redis 6.2+; the dead set's only while it exists; with groups, one batch for all groups visited), and the claimed ones are written with one HSET of their claim
-- entries and one RPUSH: a few commands per call instead of six per job. An id popped twice in one
-- call is taken once.
-- Under a rate limit a claim takes only the jobs that start now, none for the buffer: the rate log
-- counts a job when it is claimed, and a prefetched job would start later than counted.
-- Runs when Redis is full (run_even_when_full in _full.lua): it drains the queue, so its writes
-- (the claim entries, the active list, the memo) must not be refused.
-- Returns {server now, wait, flags, id1, record1, ar1, group1, id2, record2, ar2, group2, ...},
-- the started jobs first, each record as stored, its ar (base 36) as it reads once the job started
-- (attempts + 1, RUNNING; see _claims.lua) and the group it was claimed in ('' the default group;
-- a resent copy reads it from the claim entry, or from groups when the entry names none);
-- wait is 0, -1 when the queue
-- is paused, -2 when the fence refused the claim (see above), or the ms until the rate limit lets the
-- next job start when it let no more start now;
-- flags: STARTS_ONLY (1) when a rate limit applies (this claim prefetched nothing), plus MORE_READY (2)
-- when the claim took fewer jobs than wanted while ready jobs are left that it did not reach (a group
-- in turn beyond the VISITS it visited, or ids past its pop budget): the consumer claims again at
-- once rather than wait on ready. A resent copy answers the first run's flags.
-- Groups (docs/architecture.md#groups): with no grouped job in the queue (one EXISTS on groups) or
-- no group in the rotation, the jobs are taken from ready as above. Otherwise the default group joins the rotation when ready is not empty, and the
-- claim visits the first VISITS groups of the rotation, lowest turn first, taking from each at most
-- its share (n / groups visited, rounded up; a second round takes what the first left), in its
-- list's order. A visited group goes to the back of the rotation, or out of it once its list is
-- empty. Per group visited only its LPOP runs (and an EXISTS when that LPOP gave all it was asked
-- for): the ids popped from all groups are checked in one batch, and the rotation is updated once
-- at the end (one EXISTS of the lists not known empty, one HINCRBY reserving a turn for each group
-- put back, one ZADD, one ZREM; under a limit one HMGET and one HSET of held counts). A claim
-- that visited every group in turn (fewer than VISITS) leaves the turns of those left as they
-- are: their order is the order it visited them in. Under a group-limit, each grouped job taken raises its group's count in group-held, and its
-- claim entry names the group (_claims.lua); a group that reaches group-limit is parked (_groups.lua)
-- instead of put back, until one of its holds ends. Without one ('0') no count is kept and no entry
-- names a group: a limit set later counts only the holds claimed from then on. The default group has no limit. An id met in a list that is not its group's (its job re-published into another group, or
-- put into ready by a script that does not route) is moved to its group's list, not taken.
-- Cost: O(n + stale + expired rate log entries + (VISITS + 1) log G) for G groups with ready jobs,
-- independent of the backlog and of the number of groups. With groups, about VISITS + 12 commands
-- per call (an LPOP per group visited, the rest per call); a stale id that leaves a group's share
-- short costs one more pass (an LPOP per group with room, one batch of reads), and every pass pops
-- at least one id of the call's budget (n + 1000).
local wanted = tonumber(ARGV[1])
local start_now = tonumber(ARGV[10])
local longest = tonumber(ARGV[5])
-- the flags of the reply's third value
local STARTS_ONLY, MORE_READY = 1, 2
local out = { now_ms(), 0, 0 }
local fence = redis.call('HGET', KEYS[9], ARGV[2])
if fence and tonumber(fence) > tonumber(ARGV[4]) then return { out[1], -2, tonumber(fence) } end
-- ar (base 36) of the job with claim entry `entry` for record gen `gen`, as it reads once started,
-- and the group its claim counted it in ('' the default group)
local function started_ar(entry, gen)
  local c = claim_of(entry)
  if not c or c.gen ~= gen then return '0', nil end
  as_started(c)
  return to36(flags_of(c)), c.group
end
local prior = replayed(KEYS[10])
if prior then
  out[1] = prior[1]
  out[2] = prior[2]
  out[3] = prior[3]
  if #prior > 3 then
    local ids = {}
    for i = 4, #prior do ids[#ids + 1] = prior[i] end
    for from = 1, #ids, 1000 do
      local to = math.min(from + 999, #ids)
      local recs = redis.call('HMGET', KEYS[3], unpack(ids, from, to))
      local entries = redis.call('HMGET', KEYS[13], unpack(ids, from, to))
      -- an entry names its group only when counted (group-limit set): else the job's group is read
      local groups = redis.call('HMGET', KEYS[14], unpack(ids, from, to))
      for i = from, to do
        local rec = recs[i - from + 1]
        local gen = rec and record_header(rec)
        if gen then
          -- a PREFETCHED job is shown as it reads once started, as in the first reply
          out[#out + 1] = ids[i]
          out[#out + 1] = rec
          local ar, group = started_ar(entries[i - from + 1], gen)
          out[#out + 1] = ar
          out[#out + 1] = group or groups[i - from + 1] or ''
        end
      end
    end
  end
  return out
end
run_even_when_full(KEYS[13])
if not redis.call('ZSCORE', KEYS[8], ARGV[2]) then
  redis.call('ZADD', KEYS[8], out[1] + tonumber(ARGV[3]), ARGV[2])
end
local control = redis.call('HMGET', KEYS[11], 'paused', 'rate')
if control[1] then
  out[2] = -1
  return out
end
local permits, window = tonumber(ARGV[6]), tonumber(ARGV[7])
if control[2] then
  local slash = string.find(control[2], '/', 1, true)
  permits, window = tonumber(string.sub(control[2], 1, slash - 1)), tonumber(string.sub(control[2], slash + 1))
end
-- ms until the oldest start in the log leaves the window
local function next_permit()
  local oldest = redis.call('ZRANGE', KEYS[12], 0, 0, 'WITHSCORES')
  if #oldest == 0 then return 1 end
  return math.max(1, tonumber(oldest[2]) + window - out[1])
end
if permits > 0 then out[3] = STARTS_ONLY end
local partitions = tonumber(ARGV[9])
if permits > 0 and partitions > 1 then
  local index = tonumber(ARGV[8])
  local share = math.floor(permits / partitions)
  if index < permits % partitions then share = share + 1 end
  if share == 0 then
    -- fewer permits than partitions (a limit set at runtime by a caller that did not check): this one waits
    out[2] = window
    return out
  end
  permits = share
end
if permits > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[12], '-inf', out[1] - window)
  local allowed = permits - redis.call('ZCARD', KEYS[12])
  if allowed <= 0 then
    out[2] = next_permit()
    return out
  end
  wanted = math.min(wanted, allowed, start_now)
end
local VISITS = 32
-- without a group limit no held count is kept: a claim entry names no group (every end_group_hold
-- is then a no-op) and group-held only keeps the rotation's turn counter
local limit = tonumber(ARGV[11])
local counted = limit > 0
local taken, popped = 0, 0
local seen, fields, ids = {}, {}, {}
-- jobs taken per group, the groups whose lists a stray was pushed onto in this call, and whether any was
local got, refilled, strayed = {}, {}, false
local any_groups = redis.call('EXISTS', KEYS[14]) == 1
-- no dead job in the queue (the usual case): no id is looked up in the dead set, but for one this
-- call buries, which seen[] already covers
local any_dead = redis.call('EXISTS', KEYS[5]) == 1
-- checks a batch of popped ids, listed the group whose list they came from ('' the default group;
-- a table: listed[i] for batch[i]), and takes the ready ones in batch order: the stale ones are
-- dropped, the unreadable ones buried, the ones of another group moved to their own group's list
local function check(batch, listed)
  local recs = redis.call('HMGET', KEYS[3], unpack(batch))
  local entries = redis.call('HMGET', KEYS[13], unpack(batch))
  local dead = any_dead and redis.call('ZMSCORE', KEYS[5], unpack(batch)) or {}
  local groups = any_groups and redis.call('HMGET', KEYS[14], unpack(batch)) or {}
  local delayed = delayed_scores(KEYS[4], batch, groups, recs)
  local strays, stray_groups = {}, {}
  local per_id = type(listed) == 'table'
  for i, id in ipairs(batch) do
    local g = listed
    if per_id then g = listed[i] end
    local rec = recs[i]
    local gen, due, c
    if rec then
      gen, due = record_header(rec)
      c = entries[i] and claim_of(entries[i])
      -- an entry of another gen cannot outlive its record (see _claims.lua); read as none if it did
      if c and c.gen ~= gen then c = nil end
    end
    local own = groups[i] or ''
    if seen[id] then
      -- taken (or buried) a moment ago in this call: a stale duplicate
    elseif rec and own ~= g then
      -- not this group's job: to its own group's list
      strays[#strays + 1] = id
      stray_groups[#stray_groups + 1] = own
    elseif rec and #rec > longest and not delayed[i] and not dead[i] and (not c or c.hold == FREE) then
      seen[id] = true
      redis.call('ZADD', KEYS[5], out[1], id)
      redis.call('HSET', KEYS[6], id, 'record is ' .. #rec .. ' bytes, more than this consumer accepts (' .. longest
        .. '; delay.max-payload-size)')
      redis.call('HINCRBY', KEYS[7], 'dead', 1)
    elseif gen and (not c or c.hold == FREE) and not delayed[i] and not dead[i] then
      seen[id] = true
      local prefetch = taken >= start_now
      local entry, started
      if not c then
        -- never attempted (the common case): written straight, no table (ar 9: attempt 1 RUNNING; 2: PREFETCHED)
        if prefetch then entry = gen .. ',2,' .. due else entry = gen .. ',9,' .. due end
        if counted and g ~= '' then entry = entry .. ',' .. g end
        started = '9'
      else
        c.due = due
        if counted and g ~= '' then c.group = g else c.group = nil end
        if prefetch then c.hold = PREFETCHED else c.hold = RUNNING; c.attempts = c.attempts + 1 end
        entry = claim_entry(c)
        as_started(c)
        started = to36(flags_of(c))
      end
      fields[#fields + 1] = id
      fields[#fields + 1] = entry
      ids[#ids + 1] = id
      out[#out + 1] = id
      out[#out + 1] = rec
      out[#out + 1] = started
      out[#out + 1] = g
      taken = taken + 1
      got[g] = (got[g] or 0) + 1
    elseif rec and not gen and not dead[i] then
      seen[id] = true
      redis.call('ZADD', KEYS[5], out[1], id)
      redis.call('HSET', KEYS[6], id, 'record is not in the job format')
      redis.call('HINCRBY', KEYS[7], 'dead', 1)
    end
  end
  if #strays > 0 then
    push_by_group(strays, stray_groups, KEYS[1], KEYS[15], KEYS[16], false)
    strayed = true
    for _, sg in ipairs(stray_groups) do refilled[sg] = true end
    if refilled[''] then into_rotation(KEYS[15], KEYS[16], '') end
  end
end
-- whole: the claim visited every group in turn (see below); in_turn: one of them is left in turn
local whole, in_turn = false, false
-- no grouped job in the queue (no groups hash): ready alone, for that one EXISTS; a rotation left
-- with stale ids only (their jobs gone) waits for the next grouped job
local grouped = any_groups and redis.call('ZCARD', KEYS[15]) > 0
if not grouped then
  while taken < wanted and popped < wanted + 1000 do
    -- at most 1000 ids a pop, so that every unpack stays far from Lua's stack limit
    local batch = redis.call('LPOP', KEYS[1], math.min(wanted - taken, wanted + 1000 - popped, 1000))
    if not batch then break end
    popped = popped + #batch
    check(batch, '')
  end
else
  -- the wake marker has done its work (this claim runs), and must not count as the default group's turn
  local default_ready = redis.call('LLEN', KEYS[1])
  if default_ready > 0 and redis.call('LINDEX', KEYS[1], 0) == WAKE then
    redis.call('LPOP', KEYS[1])
    default_ready = default_ready - 1
  end
  if default_ready > 0 then into_rotation(KEYS[15], KEYS[16], '') end
  local visiting = redis.call('ZRANGEBYSCORE', KEYS[15], '-inf', '(' .. PARKED, 'LIMIT', 0, VISITS)
  local share = math.ceil(wanted / math.max(1, #visiting))
  -- held[g]: g's held count before this call (read once, for all visited groups, when counted)
  local held = {}
  if counted and #visiting > 0 then
    local counts = redis.call('HMGET', KEYS[16], unpack(visiting))
    for i, g in ipairs(visiting) do held[g] = tonumber(counts[i] or '0') end
    -- the default group has no limit (no visited group is blank but the default group)
    held[''] = nil
  end
  -- empty[g]: g's list ran out (its LPOP gave fewer than asked); reached: the groups this call got to
  local empty, reached = {}, 0
  for round = 1, 2 do
    -- a pass pops from each group in turn, then checks all it popped in one batch; another pass
    -- follows only when a stale id left room (as many passes as take the popped budget at most)
    while taken < wanted and popped < wanted + 1000 do
      local batch, listed = {}, {}
      local planned = taken
      for i, g in ipairs(visiting) do
        if planned >= wanted or popped >= wanted + 1000 then break end
        if i > reached then reached = i end
        if refilled[g] then empty[g] = nil; refilled[g] = nil end
        local room = wanted - planned
        if round == 1 then room = math.min(room, share - (got[g] or 0)) end
        if held[g] then room = math.min(room, limit - held[g] - (got[g] or 0)) end
        room = math.min(room, wanted + 1000 - popped, 1000 - #batch)
        if room > 0 and not empty[g] then
          local part = redis.call('LPOP', group_list(KEYS[1], g), room)
          if not part or #part < room then empty[g] = true end
          if part then
            popped = popped + #part
            planned = planned + #part
            for _, id in ipairs(part) do
              batch[#batch + 1] = id
              listed[#listed + 1] = g
            end
          end
        end
      end
      if #batch == 0 then break end
      check(batch, listed)
    end
  end
  -- each group reached goes to the back of the rotation in the order visited (parked at its limit),
  -- or out of it once its list is empty: one EXISTS of the lists not known empty, one turn counter
  -- increment for all, one ZADD and one ZREM. When the call visited every group in turn (fewer than
  -- VISITS, all reached, none joined meanwhile), those left in turn keep their turns: their order is
  -- the order they were visited in, and a group that joins later gets a later turn either way
  whole = #visiting < VISITS and reached == #visiting and not strayed
  local unsure = {}
  for i = 1, reached do
    local g = visiting[i]
    if refilled[g] then empty[g] = nil end
    if not empty[g] then unsure[#unsure + 1] = g end
  end
  if #unsure > 0 then
    local lists = {}
    for i, g in ipairs(unsure) do lists[i] = group_list(KEYS[1], g) end
    local present = redis.call('EXISTS', unpack(lists))
    if present == 0 then
      for _, g in ipairs(unsure) do empty[g] = true end
    elseif present < #unsure then
      for i, g in ipairs(unsure) do
        if redis.call('EXISTS', lists[i]) == 0 then empty[g] = true end
      end
    end
  end
  local back, gone, counts = {}, {}, {}
  for i = 1, reached do
    local g = visiting[i]
    local parked = held[g] and held[g] + (got[g] or 0) >= limit
    if empty[g] then
      gone[#gone + 1] = g
    elseif parked or not whole then
      back[#back + 1] = g
    end
    if not empty[g] and not parked then in_turn = true end
    if held[g] and got[g] then
      counts[#counts + 1] = g
      counts[#counts + 1] = held[g] + got[g]
    end
  end
  if #counts > 0 then redis.call('HSET', KEYS[16], unpack(counts)) end
  if #gone > 0 then redis.call('ZREM', KEYS[15], unpack(gone)) end
  if #back > 0 then
    local turn = redis.call('HINCRBY', KEYS[16], '', #back) - #back
    local turns = {}
    for i, g in ipairs(back) do
      local score = turn + i
      if held[g] and held[g] + (got[g] or 0) >= limit then score = PARKED + score end
      turns[#turns + 1] = score
      turns[#turns + 1] = g
    end
    redis.call('ZADD', KEYS[15], 'XX', unpack(turns))
  end
end
-- fewer than wanted: say whether ready work is left (a group in turn beyond the VISITS visited, or
-- ready ids past the pop budget), so that the consumer claims again at once instead of waiting on
-- ready, which a grouped job does not fill (docs/architecture.md#groups)
if taken < wanted then
  local more
  if whole then
    -- every group in turn was visited: those left in turn are known
    more = in_turn
  elseif grouped then
    more = #redis.call('ZRANGEBYSCORE', KEYS[15], '-inf', '(' .. PARKED, 'LIMIT', 0, 1) > 0
  else
    more = redis.call('LLEN', KEYS[1]) > 0
  end
  if more then out[3] = out[3] + MORE_READY end
end
if #ids > 0 then
  call_in_chunks('HSET', KEYS[13], fields)
  call_in_chunks('RPUSH', KEYS[2], ids)
  if permits > 0 then
    local seq = redis.call('HINCRBY', KEYS[11], 'rate-seq', #ids)
    local starts = {}
    for i = 1, #ids do
      starts[#starts + 1] = out[1]
      starts[#starts + 1] = (seq - #ids + i)
    end
    call_in_chunks('ZADD', KEYS[12], starts)
    redis.call('PEXPIRE', KEYS[12], window * 2)
    -- the limit is reached: say when the next job may start, so the consumer waits instead of asking
    if redis.call('ZCARD', KEYS[12]) >= permits then out[2] = next_permit() end
  end
end
local memo = { out[1], out[2], out[3] }
for _, id in ipairs(ids) do memo[#memo + 1] = id end
remember(KEYS[10], memo)
return out
