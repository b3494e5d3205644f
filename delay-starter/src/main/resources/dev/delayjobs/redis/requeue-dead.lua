--! include: _clock, _record, _groups
-- requeue-dead: dead jobs get a fresh start: attempts reset, error cleared, READY at once, and a
-- new gen, so that (gen, attempt) still names one claim: an outcome of a claim from before the
-- death cannot finish the claims after the requeue. Requeue gens count from 36^10 (stats field
-- 'requeued'), apart from publish gens, which would need 3.6e15 publishes to get there.
-- KEYS[1] dead: zset
-- KEYS[2] jobs: hash
-- KEYS[3] errors: hash
-- KEYS[4] ready: list
-- KEYS[5] stats: hash
-- KEYS[6] claims: hash, id -> claim entry (see _claims.lua): the entry is deleted (no attempt, not
--   suspect, not held)
-- KEYS[7] groups: hash, id -> group (grouped jobs only): a grouped job goes to its group's ready list
-- KEYS[8] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[9] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] max: at most this many
-- ARGV[2..] id: the ids; with no id, the oldest dead jobs
-- Returns how many were requeued. Cost: O(M log N) for M jobs (and O(log G) per group met).
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1) end
local now = now_ms()
local requeued = {}
for _, id in ipairs(ids) do
  if redis.call('ZREM', KEYS[1], id) == 1 then
    local rec = redis.call('HGET', KEYS[2], id)
    local r = rec and decode(rec)
    if r then
      r.gen = 3656158440062976 + redis.call('HINCRBY', KEYS[5], 'requeued', 1)
      r.due = now
      redis.call('HSET', KEYS[2], id, encode(r))
      redis.call('HDEL', KEYS[6], id)
      redis.call('HDEL', KEYS[3], id)
      requeued[#requeued + 1] = id
    else
      -- a record not in the job format cannot run: leave it dead
      redis.call('ZADD', KEYS[1], now, id)
    end
  end
end
push_ready(requeued, KEYS[7], KEYS[4], KEYS[8], KEYS[9])
return #requeued
