-- ack: jobs whose handler succeeded are done and deleted.
-- KEYS[1] active:<instance> (list)   KEYS[2] jobs (hash)   KEYS[3] errors (hash)   KEYS[4] stats (hash)
-- ARGV triplets: id, gen, attempt: the claim being finished. The gen tells a replacement (left
-- alone); the attempt tells a later claim of the same job, after a recovery.
-- Only a caller that still holds the job (its id in the caller's active list) may finish it: a
-- consumer presumed dead whose jobs were recovered and claimed elsewhere must not delete them.
-- The claim is compared first, so an outcome of an old claim never removes a newer claim's entry.
-- The records are read with one HMGET and deleted with one HDEL per hash: per job, only the LREM.
-- Returns how many jobs were deleted. Cost: O(1) per job plus O(active) for LREM.
local ids = {}
for i = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
local recs = redis.call('HMGET', KEYS[2], unpack(ids))
local done, seen = {}, {}
for k, id in ipairs(ids) do
  local gen, attempt = ARGV[3 * k - 1], tonumber(ARGV[3 * k])
  local r = recs[k] and decode(recs[k])
  -- an entry of a newer claim of the id (another gen, or a later attempt) is not the caller's
  if not seen[id] and not (r and (r.gen ~= gen or r.attempts ~= attempt)) then
    seen[id] = true
    local held = redis.call('LREM', KEYS[1], 1, id) == 1
    if held and r and r.running == '1' then
      done[#done + 1] = id
    end
  end
end
if #done > 0 then
  redis.call('HDEL', KEYS[2], unpack(done))
  redis.call('HDEL', KEYS[3], unpack(done))
  redis.call('HINCRBY', KEYS[4], 'completed', #done)
end
return #done
