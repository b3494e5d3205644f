--! include: _chunks, _clock, _wake
-- transfer: moves due jobs from delayed to ready, oldest due first (the watchdog timer's step).
-- KEYS[1] delayed: zset
-- KEYS[2] ready: list
-- ARGV[1] max: at most this many jobs per call
-- Returns {moved, next due time in epoch ms or -1, server now in epoch ms}.
-- Cost: O(log N + M log N) for M moved; never scans the backlog.
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
if #due > 0 then
  call_in_chunks('ZREM', KEYS[1], due)
  call_in_chunks('RPUSH', KEYS[2], due)
end
local next_due = head_score(KEYS[1]) or -1
return { #due, next_due, now }
