-- ack: jobs whose handler succeeded are done and deleted.
-- KEYS[1] active:<instance> (list)   KEYS[2] jobs (hash)   KEYS[3] errors (hash)   KEYS[4] stats (hash)
-- ARGV triplets: id, gen, attempt: the claim being finished. The gen tells a replacement (left
-- alone); the attempt tells a later claim of the same job, after a recovery.
-- Only the caller that still holds the claim may finish it (let_go_of_claim in _record.lua): a
-- consumer presumed dead whose jobs were recovered and claimed elsewhere must not delete them.
-- A busy consumer sends most acks with its next claim instead (claim.lua); this script carries
-- the ones that would otherwise wait (the queue empty, paused or rate limited).
-- Returns how many jobs were deleted. Cost: O(1) per job plus O(active) for LREM.
return ack_claims(KEYS[1], KEYS[2], KEYS[3], KEYS[4], 1)
