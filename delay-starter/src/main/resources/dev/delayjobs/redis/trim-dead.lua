--! include: _chunks, _clock
-- trim-dead: deletes dead jobs older than the retention, oldest first, a bounded batch per call.
-- KEYS[1] dead: zset
-- KEYS[2] jobs: hash
-- KEYS[3] errors: hash
-- KEYS[4] claims: hash, id -> claim entry (see _claims.lua): deleted with the jobs
-- KEYS[5] groups: hash, id -> group (grouped jobs only): deleted with the jobs
-- ARGV[1] retention-ms
-- ARGV[2] max: at most this many per call
-- Returns how many were deleted. Cost: O(log N + M).
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms() - tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[2]))
if #ids > 0 then
  call_in_chunks('ZREM', KEYS[1], ids)
  call_in_chunks('HDEL', KEYS[2], ids)
  call_in_chunks('HDEL', KEYS[3], ids)
  call_in_chunks('HDEL', KEYS[4], ids)
  call_in_chunks('HDEL', KEYS[5], ids)
end
return #ids
