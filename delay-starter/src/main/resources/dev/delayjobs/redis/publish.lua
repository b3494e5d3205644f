--! include: _chunks, _memo, _clock, _record, _claims, _wake, _successors, _groups, _delayed
-- publish: stores new jobs; each is DELAYED, or READY when already due.
-- KEYS[1] jobs: hash
-- KEYS[2] delayed: zset of marks (a grouped job waits in <delayed>:<g>, a job of the default group in a
--   page <delayed>:\2<n> indexed in <delayed>-pages: _delayed.lua)
-- KEYS[3] ready: list
-- KEYS[4] stats: hash
-- KEYS[5] dead: zset
-- KEYS[6] errors: hash
-- KEYS[7] memo: the request's memo bucket (hash; see replayed() in _memo.lua): a resent copy
--   returns the first run's statuses, so a publish is never read as meeting its own job (a
--   generated id drawn again would make a duplicate)
-- KEYS[8] control: hash (see pause.lua): its 'partitions' field, when set, is how many partitions
--   the queue is laid out in (see record-partition-layout.lua); jobs routed by another count are refused
-- KEYS[9] successors: hash (see queue_successor in _successors.lua)
-- KEYS[10] claims: hash, id -> claim entry (see _claims.lua): a job held by a consumer is read from
--   it (the old record is not read); a replaced job's entry is deleted (the new record has no attempt)
-- KEYS[11] groups: hash, id -> group (grouped jobs only; see _groups.lua)
-- KEYS[12] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[13] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] wake: the wake channel
-- ARGV[2] count: the job count n
-- ARGV[3] partitions: the partition count the publisher routed by
-- ARGV[4..] id, kind, time, payload: per job (four arguments, each one the client encodes and Redis
--   converts): its id; its kind, one string: the mode, 'd' (delay ms from now) or 'a' (absolute
--   epoch ms), then replace, '1' replace an existing job, '0' keep it, 'n' a generated id, kept too
--   when it meets any job, held or not, so the publisher draws another id, then its group, nothing
--   for the default group (so 'dn', 'a1orders'); the time in base 36, lower case (as it goes into
--   the record: the age of a delay, the due time of an instant); the payload. A grouped job's group is stored in
--   groups, and when due it goes to its group's ready list (_groups.lua); a replacement without a
--   group deletes the old one's.
-- ARGV[last] memo: the request's field in the memo bucket (_memo.lua)
-- A keyed publish ('0' or '1') that meets its job held by a consumer (RUNNING or PREFETCHED) is
-- stored as the key's successor (queue_successor), or applied to the successor waiting already.
-- Returns per job: 1 created, 2 replaced an existing job, 0 kept the existing job (or successor),
-- 3 stored as the successor of the held job; or the error
-- 'LAYOUT <count>', storing nothing, when the queue is laid out in another number of partitions.
-- Commands: n HSETNX (an HGET and an HDEL more per keyed job that meets one), then for the whole
-- call: the memo's HGET, HSET and PTTL (the memo is '' when every job was created: ALL_CREATED),
-- the layout's HGET, TIME, one HINCRBY, one RPUSH of the due jobs, and when it delays any, a ZRANGE of the head,
-- a ZADD of those due within a minute or before the last page's bound, and for the rest a few
-- commands (add_default in _delayed.lua: one index read, a ZCARD, a ZADD of the jobs and one of the
-- page's mark, or a new page's writes), one HINCRBY of the count, and a PUBLISH on
-- wake when the earliest beats the head; so a batch costs about one command per job. A replacing
-- job meeting its old one reads the old record too (its due time finds its page). Grouped jobs add one HSET
-- of their groups for the call, and per group one ZADD (delayed) or RPUSH (due), see _delayed.lua and
-- _groups.lua.
-- Cost: O(n log N). Per job, Lua formats two base-36 numbers, the gen and the due time of a delay
-- (the age of an instant), each from the leading digits the job before had (base36_run).
local prior = replayed(KEYS[7])
if prior == ALL_CREATED then
  local created = {}
  for i = 1, tonumber(ARGV[2]) do created[i] = 1 end
  return created
end
if prior then return prior end
local layout = redis.call('HGET', KEYS[8], 'partitions')
if layout and layout ~= ARGV[3] then return redis.error_reply('LAYOUT ' .. layout) end
local n = tonumber(ARGV[2])
local now = now_ms()
-- one gen per job, taken at once; a kept job leaves a gap, which is harmless: gens are only compared
local last_gen = redis.call('HINCRBY', KEYS[4], 'published', n)
local gen36_of, due36_of = base36_run(1), base36_run(4)
local earliest = nil
local result = {}
-- placed: where each id of this call went, as a number (no table per job): its index in ready, or
-- minus its score's index in scored
local scored, ready, placed = {}, {}, {}
-- the group of each ready id (false: the default group), only once a grouped job is met
local ready_groups, any_group = {}, false
-- the group each id stored by this call is written with (false: none), in one HSET at the end;
-- also what splits the delayed ones by group
local group_written, written_ids = {}, {}
local function write_group(id, g)
  if group_written[id] == nil then written_ids[#written_ids + 1] = id end
  group_written[id] = g
end
local replaced_in_call = false
local all_created = true
for i = 0, n - 1 do
  local base = 4 + i * 4
  local id, kind, time36, payload = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
  local replace, group = string.sub(kind, 2, 2), ''
  if #kind > 2 then group = string.sub(kind, 3) end
  -- the record's header: of its three base-36 numbers, the client sent one (a delay is the age,
  -- an instant the due time) and the gen is the one before plus one, so one is formatted here
  local time = tonumber(time36, 36)
  local due, due36, age36
  if string.byte(kind) == 100 then -- 'd'
    due = now + time
    due36, age36 = due36_of(due), time36
  else
    due = time
    due36, age36 = time36, due36_of(time - now)
  end
  local record = gen36_of(last_gen - n + 1 + i) .. ',' .. due36 .. ',' .. age36 .. '|' .. payload
  local status = 1
  if redis.call('HSETNX', KEYS[1], id, record) == 0 then
    local old = replace ~= 'n' and claim_of(redis.call('HGET', KEYS[10], id))
    if old and old.hold ~= FREE then
      status = queue_successor(KEYS[9], id, record, replace, group)
    elseif replace ~= '1' then
      status = 0
    else
      status = 2
      -- the old record's due time finds the page it may wait in (_delayed.lua)
      remove_delayed(KEYS[2], KEYS[11], id, record_due(redis.call('HGET', KEYS[1], id)))
      redis.call('ZREM', KEYS[5], id)
      redis.call('HDEL', KEYS[6], id)
      -- the replacement is the newest intent: a successor left waiting by a retry or recovery goes
      redis.call('HDEL', KEYS[9], id)
      if old then redis.call('HDEL', KEYS[10], id) end
      if group == '' then
        redis.call('HDEL', KEYS[11], id)
        write_group(id, false)
      end
      redis.call('HSET', KEYS[1], id, record)
    end
  end
  if (status == 1 or status == 2) and group ~= '' then
    write_group(id, group)
    any_group = true
  end
  if status == 1 or status == 2 then
    -- an id met again in this call (replaced within the batch) keeps only its last placement
    local before = placed[id]
    if before then
      replaced_in_call = true
      if before > 0 then ready[before] = false; ready_groups[before] = false else scored[-before] = false; scored[-before + 1] = false end
    end
    if due <= now then
      ready[#ready + 1] = id
      ready_groups[#ready] = group ~= '' and group
      placed[id] = #ready
    else
      scored[#scored + 1] = due
      scored[#scored + 1] = id
      placed[id] = -(#scored - 1)
      if earliest == nil or due < earliest then earliest = due end
    end
  end
  result[i + 1] = status
  if status ~= 1 then all_created = false end
end
if replaced_in_call then
  local function kept(list)
    local out = {}
    for _, v in ipairs(list) do if v then out[#out + 1] = v end end
    return out
  end
  local kept_groups = {}
  for j, v in ipairs(ready) do if v then kept_groups[#kept_groups + 1] = ready_groups[j] end end
  scored, ready, ready_groups = kept(scored), kept(ready), kept_groups
end
-- the head is read only when the call delays a job (a call of due jobs announces nothing), and
-- after the replaced jobs left the set: a new earliest is announced when it beats what is there
if earliest ~= nil then
  local head = head_score(KEYS[2])
  if any_group then
    -- grouped jobs go to their groups' zsets, the rest to delayed, in one ZADD per 1000
    local by_group, groups_met = split_by_group(scored, 2,
      function(i) return group_written[scored[i + 1]] or '' end)
    add_delayed_groups(KEYS[2], by_group, groups_met, now)
  else
    add_delayed(KEYS[2], '', scored, now)
  end
  wake_if_head(KEYS[2], ARGV[1], earliest, head)
end
if any_group then
  local fields = {}
  for _, id in ipairs(written_ids) do
    if group_written[id] then
      fields[#fields + 1] = id
      fields[#fields + 1] = group_written[id]
    end
  end
  call_in_chunks('HSET', KEYS[11], fields)
  push_by_group(ready, ready_groups, KEYS[3], KEYS[12], KEYS[13], false)
else
  call_in_chunks('RPUSH', KEYS[3], ready)
end
-- the usual reply, every job created, is remembered as '' (_memo.lua)
return remember(KEYS[7], result, all_created and '' or nil)
