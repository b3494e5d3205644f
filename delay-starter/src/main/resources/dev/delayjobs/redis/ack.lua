-- ack: jobs whose handler succeeded are done and deleted.
-- KEYS[1] active:<instance> (list)   KEYS[2] jobs (hash)   KEYS[3] errors (hash)   KEYS[4] stats (hash)
-- ARGV triplets: id, gen, attempt: the claim being finished. The gen tells a replacement (left
-- alone); the attempt tells a later claim of the same job, after a recovery.
-- Only a caller that still holds the job (its id in the caller's active list) may finish it: a
-- consumer presumed dead whose jobs were recovered and claimed elsewhere must not delete them.
-- The claim is compared first, so an outcome of an old claim never removes a newer claim's entry.
-- Returns how many jobs were deleted. Cost: O(1) per job plus O(active) for LREM.
local done = 0
for i = 1, #ARGV, 3 do
  local id, gen, attempt = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local rec = redis.call('HGET', KEYS[2], id)
  local r = rec and decode(rec)
  -- an entry of a newer claim of the id (another gen, or a later attempt) is not the caller's
  if not (r and (r.gen ~= gen or r.attempts ~= attempt)) then
    local held = redis.call('LREM', KEYS[1], 1, id) == 1
    if held and r and r.running == '1' then
      redis.call('HDEL', KEYS[2], id)
      redis.call('HDEL', KEYS[3], id)
      done = done + 1
    end
  end
end
if done > 0 then redis.call('HINCRBY', KEYS[4], 'completed', done) end
return done
