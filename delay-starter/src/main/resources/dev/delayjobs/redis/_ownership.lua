--! include: _claims
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
