--! include: _chunks, _clock, _wake, _groups
-- transfer: moves due jobs from delayed to ready, oldest due first (the watchdog timer's step); a
-- grouped job goes to its group's ready list (see _groups.lua).
-- KEYS[1] delayed: zset
-- KEYS[2] ready: list
-- KEYS[3] groups: hash, id -> group (grouped jobs only)
-- KEYS[4] groups-ready: zset, the rotation of groups with ready jobs
-- KEYS[5] group-held: hash, group -> held jobs ('' -> the rotation's turn counter)
-- ARGV[1] max: at most this many jobs per call
-- Returns {moved, next due time in epoch ms or -1, server now in epoch ms}.
-- Cost: O(log N + M log N) for M moved (and O(log G) per group met); never scans the backlog nor
-- reads a record.
local now = now_ms()
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
if #due > 0 then
  call_in_chunks('ZREM', KEYS[1], due)
  push_ready(due, KEYS[3], KEYS[2], KEYS[4], KEYS[5])
end
local next_due = head_score(KEYS[1]) or -1
return { #due, next_due, now }
