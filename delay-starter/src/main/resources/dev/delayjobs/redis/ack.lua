-- ack: jobs whose handler succeeded are done and deleted.
-- KEYS[1] active:<instance> (list)   KEYS[2] jobs (hash)   KEYS[3] errors (hash)   KEYS[4] stats (hash)
-- ARGV triplets: id, gen, attempt: the claim being finished. The gen tells a replacement (left
-- alone); the attempt tells a later claim of the same job, after a recovery.
-- Only the caller that still holds the claim may finish it (let_go_of_claim in _record.lua): a
-- consumer presumed dead whose jobs were recovered and claimed elsewhere must not delete them.
-- The records are read with one HMGET and deleted with one HDEL per hash: per job, only the LREM.
-- Returns how many jobs were deleted. Cost: O(1) per job plus O(active) for LREM.
local ids = {}
for i = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
local recs = redis.call('HMGET', KEYS[2], unpack(ids))
-- a batch may hold two claims of one job (one whose reply was lost, and the claim after it):
-- duplicates are told by claim (id, gen, attempt), not by id, so the stale one cannot hide the valid one
local done, seen = {}, {}
for k, id in ipairs(ids) do
  local claim = id .. ',' .. ARGV[3 * k - 1] .. ',' .. ARGV[3 * k]
  if not seen[claim] then
    seen[claim] = true
    local held, r = let_go_of_claim(KEYS[1], id, recs[k], ARGV[3 * k - 1], ARGV[3 * k], decode_header)
    if held and r and r.hold == RUNNING then
      done[#done + 1] = id
    end
  end
end
if #done > 0 then
  call_in_chunks('HDEL', KEYS[2], done)
  call_in_chunks('HDEL', KEYS[3], done)
  redis.call('HINCRBY', KEYS[4], 'completed', #done)
end
return #done
