--! include: _clock, _ahead
-- schedule-set-tick: pauses a schedule (its next tick deleted) or resumes it (a next tick stored).
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published
-- KEYS[3] schedule-ahead: zset, the jobs of ticks published ahead (see _ahead.lua)
-- KEYS[4] schedule-ahead-due: zset, the same by tick
-- KEYS[5] jobs: hash
-- KEYS[6] delayed: zset
-- ARGV[1] name
-- ARGV[2] spec: the spec the caller computed the tick with (resume only: compared with the stored one)
-- ARGV[3] tick: '' to pause; else the first tick after resuming (epoch ms), stored only if the
--   schedule is paused (a running schedule keeps its tick) and still has that spec
-- A pause takes back the jobs of the ticks published ahead whose instant is still to come; a tick
-- already due stays a job. Returns 1 if paused or resumed, 0 if the schedule is absent, already in
-- that state, or its spec changed. Cost: O(log S + P log N) for P ticks published ahead (_ahead.lua).
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 0 end
if ARGV[3] == '' then
  local paused = redis.call('ZREM', KEYS[2], ARGV[1])
  take_back_ahead(KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1], now_ms())
  return paused
end
if string.sub(value, 1, #ARGV[2] + 1) ~= ARGV[2] .. '\n' then return 0 end
return redis.call('ZADD', KEYS[2], 'NX', tonumber(ARGV[3]), ARGV[1])
