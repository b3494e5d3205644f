--! include: _clock, _base36, _record, _claims, _wake, _wake_marker, _delayed
-- queue-stats: every count of one queue in one call, for the endpoint, health and gauges (read-only).
-- KEYS[1] delayed: zset (its head is the next due time, a group's mark included; the count of
--   delayed jobs, grouped ones included, is read from <delayed>-counts: _delayed.lua)
-- KEYS[2] ready: list (its wake marker is not counted: _wake_marker.lua)
-- KEYS[3] dead: zset
-- KEYS[4] stats: hash
-- KEYS[5] instances: zset, instance -> lease deadline
-- KEYS[6] workers: hash
-- KEYS[7] jobs: hash
-- KEYS[8] control: hash (see pause.lua)
-- KEYS[9] claims: hash, id -> claim entry (see _claims.lua)
-- KEYS[10] groups-ready: zset, the rotation of groups with ready jobs (see _groups.lua); the ready
--   lists of the groups read from it (ready:<g>) are in this slot, named from KEYS[2]
-- KEYS[11..] active: the active:<instance> lists of the instances the caller read from KEYS[5] just
--   before; an instance that entered after that read is shown holding 0 jobs
-- ARGV[1] active-prefix: prefix of the active lists
-- ARGV[2] most-held-ids: most held ids whose claim entries are read in this call: the held ids
--   beyond it (all instances together, in lease order) count as running, not told apart from
--   prefetched ones
-- ARGV[3] groups-read: most groups of the rotation whose ready lists are measured (the first, by
--   turn: the next to be served, parked ones last)
-- ARGV[4] group-heads: of those, the most whose oldest ready job's record is read for its due time
--   (the first by turn)
-- ARGV[5] head-bytes: the most record bytes read for them (HSTRLEN first)
-- Held jobs are counted from their claim entries, never their records: the records read are the
-- head of ready's and the heads of the first ARGV[4] groups' lists within ARGV[5] bytes (for their
-- due times; the oldest waiting job of a group beyond them is not seen).
-- Returns { {now, delayed, ready (PREFETCHED jobs included), running, dead, next due or -1, due time
-- of the oldest waiting job (ready or PREFETCHED) or -1, held ids not read (counted as running)},
-- {stat name, value, ...}, {instance, lease deadline, workers, held jobs (RUNNING and PREFETCHED), of
-- which PREFETCHED, ...}, {paused at or false, runtime rate limit or false}, {groups with ready jobs
-- (named ones in the rotation, parked ones included), group, its ready ids (stale ones included),
-- ...: the named groups of the first ARGV[3] members} }. The ready count includes the ids of those
-- groups' lists, not those of the groups beyond.
-- Cost: O(I + min(H, ARGV[2]) + min(G, ARGV[3]) + log G) for I consumer instances holding H jobs and
-- G groups in the rotation, one record and at most ARGV[5] bytes of others; independent of the
-- backlog and of the held jobs' payloads.
local now = now_ms()
local next_due = head_score(KEYS[1]) or -1
local oldest = -1
if next_due >= 0 and next_due <= now then oldest = next_due end
-- the due time of a waiting job at the head of a ready list, when older than the oldest so far
local function waiting_head(head)
  if not head then return end
  local rec = redis.call('HGET', KEYS[7], head)
  local c = claim_of(redis.call('HGET', KEYS[9], head))
  local due = rec and select(2, record_header(rec))
  if due and (not c or c.hold == FREE) and (oldest < 0 or from36(due) < oldest) then oldest = from36(due) end
end
local head = redis.call('LINDEX', KEYS[2], 0)
if head == WAKE then head = redis.call('LINDEX', KEYS[2], 1) end
waiting_head(head)
local instances = {}
local running, prefetched, unread = 0, 0, 0
local budget = tonumber(ARGV[2])
-- the held jobs of one active list: RUNNING ones count as running; PREFETCHED ones, which only wait
-- in a consumer's buffer, as ready, and the oldest of them as waiting
local function count_held(active)
  local before = prefetched
  local held = redis.call('LLEN', active)
  local ids = {}
  if budget > 0 then ids = redis.call('LRANGE', active, 0, math.min(held, budget) - 1) end
  budget = budget - #ids
  unread = unread + held - #ids
  running = running + held - #ids
  for from = 1, #ids, 1000 do
    local entries = redis.call('HMGET', KEYS[9], unpack(ids, from, math.min(from + 999, #ids)))
    for _, entry in ipairs(entries) do
      local c = claim_of(entry)
      if c and c.hold == RUNNING then
        running = running + 1
      elseif c and c.hold == PREFETCHED then
        prefetched = prefetched + 1
        local due = c.due and from36(c.due)
        if due and (oldest < 0 or due < oldest) then oldest = due end
      end
    end
  end
  return held, prefetched - before
end
local declared = {}
for i = 11, #KEYS do declared[KEYS[i]] = true end
local members = redis.call('ZRANGE', KEYS[5], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  local active = ARGV[1] .. members[i]
  local held, buffered = 0, 0
  if declared[active] then held, buffered = count_held(active) end
  instances[#instances + 1] = members[i]
  instances[#instances + 1] = members[i + 1]
  instances[#instances + 1] = redis.call('HGET', KEYS[6], members[i]) or '0'
  instances[#instances + 1] = held
  instances[#instances + 1] = buffered
end
-- the groups with ready jobs: how many, and the ready lists of the first ARGV[3] in turn
local groups = { redis.call('ZCARD', KEYS[10]) }
local grouped_ready = 0
if groups[1] > 0 then
  if redis.call('ZSCORE', KEYS[10], '') then groups[1] = groups[1] - 1 end
  local heads, head_bytes = tonumber(ARGV[4]), tonumber(ARGV[5])
  for _, g in ipairs(redis.call('ZRANGE', KEYS[10], 0, tonumber(ARGV[3]) - 1)) do
    if g ~= '' then
      local n = redis.call('LLEN', KEYS[2] .. ':' .. g)
      if heads > 0 and n > 0 then
        heads = heads - 1
        local id = redis.call('LINDEX', KEYS[2] .. ':' .. g, 0)
        local size = redis.call('HSTRLEN', KEYS[7], id)
        if size <= head_bytes then
          head_bytes = head_bytes - size
          waiting_head(id)
        end
      end
      grouped_ready = grouped_ready + n
      groups[#groups + 1] = g
      groups[#groups + 1] = n
    end
  end
end
return { { now, delayed_count(KEYS[1]), ready_length(KEYS[2]) + prefetched + grouped_ready, running, redis.call('ZCARD', KEYS[3]),
           next_due, oldest, unread },
         redis.call('HGETALL', KEYS[4]),
         instances,
         redis.call('HMGET', KEYS[8], 'paused', 'rate'),
         groups }
