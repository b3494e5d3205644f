-- queue-stats: every count of one queue in one call, for the endpoint, health and gauges (read-only).
-- KEYS[1] delayed (zset)   KEYS[2] ready (list)   KEYS[3] dead (zset)   KEYS[4] stats (hash)
-- KEYS[5] instances (zset) KEYS[6] workers (hash) KEYS[7] jobs (hash)   KEYS[8] control (hash, see pause.lua)
-- KEYS[9..] the active:<instance> lists of the instances the caller read from KEYS[5] just before;
-- an instance that entered after that read is shown holding 0 jobs
-- ARGV[1] prefix of the active lists
-- Returns { {now, delayed, ready (PREFETCHED jobs included), running, dead, next due or -1, due time
-- of the oldest waiting job (ready or PREFETCHED) or -1}, {stat name, value, ...},
-- {instance, lease deadline, workers, held jobs (RUNNING and PREFETCHED), of which PREFETCHED, ...},
-- {paused at or false, runtime rate limit or false} }.
-- Cost: O(I + H) for I consumer instances holding H jobs; independent of the backlog.
local now = now_ms()
local next_due = head_score(KEYS[1]) or -1
local oldest = -1
if next_due >= 0 and next_due <= now then oldest = next_due end
local head = redis.call('LINDEX', KEYS[2], 0)
if head then
  local rec = redis.call('HGET', KEYS[7], head)
  local r = rec and decode(rec)
  if r and r.hold == FREE and (oldest < 0 or tonumber(r.due) < oldest) then oldest = tonumber(r.due) end
end
local instances = {}
local running, prefetched = 0, 0
-- the held jobs of one active list: RUNNING ones count as running; PREFETCHED ones, which only wait
-- in a consumer's buffer, as ready, and the oldest of them as waiting
local function count_held(active)
  local before = prefetched
  local ids = redis.call('LRANGE', active, 0, -1)
  for from = 1, #ids, 1000 do
    local recs = redis.call('HMGET', KEYS[7], unpack(ids, from, math.min(from + 999, #ids)))
    for _, rec in ipairs(recs) do
      local r = rec and decode(rec)
      if r and r.hold == RUNNING then
        running = running + 1
      elseif r and r.hold == PREFETCHED then
        prefetched = prefetched + 1
        if oldest < 0 or r.due < oldest then oldest = r.due end
      end
    end
  end
  return #ids, prefetched - before
end
local declared = {}
for i = 9, #KEYS do declared[KEYS[i]] = true end
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
return { { now, redis.call('ZCARD', KEYS[1]), redis.call('LLEN', KEYS[2]) + prefetched, running, redis.call('ZCARD', KEYS[3]),
           next_due, oldest },
         redis.call('HGETALL', KEYS[4]),
         instances,
         redis.call('HMGET', KEYS[8], 'paused', 'rate') }
