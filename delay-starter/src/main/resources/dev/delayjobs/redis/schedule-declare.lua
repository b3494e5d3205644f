--! include: _clock, _ahead
-- schedule-declare: stores a schedule, or leaves it alone when it is stored with the same spec and payload.
-- KEYS[1] schedules: hash, name -> spec, a newline, payload (see docs/schedules.md)
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published (epoch ms)
-- KEYS[3] schedule-declared: zset, name -> when a running application last declared it (epoch ms)
-- KEYS[4] schedules-parked: zset, name -> when last looked at: specs an instance could not read
-- KEYS[5] schedule-ahead: zset, the jobs of ticks published ahead (see _ahead.lua)
-- KEYS[6] schedule-ahead-due: zset, the same by tick
-- KEYS[7] jobs: hash
-- KEYS[8] delayed: zset
-- ARGV[1] name
-- ARGV[2] value: spec, newline, payload
-- ARGV[3] first-tick: the first tick of this spec (epoch ms), stored only when the value is new or changed
-- ARGV[4] paused: '1' to store a new schedule paused (no tick); an existing one keeps its paused state
-- ARGV[5] mode: 'put' (store it either way), 'create' (only when absent), 'update' (only when present)
-- ARGV[6] declared: '1' for a declaration (@Recurring): its time is stored in schedule-declared
--   (Redis clock); '0' for a schedule created at run time
-- Instances that declare the same schedule make one: the first stores it with its first tick, the
-- others change nothing. Another value (cron, zone, rate, misfire, overlap or payload) replaces the
-- pending tick with the new first tick (a paused schedule stays paused; a parked one ticks again),
-- and takes back the jobs of the old value's ticks published ahead whose instant is still to come.
-- Returns 0 unchanged, 1 created, 2 replaced, 3 exists (create: nothing done), 4 absent (update:
-- nothing done). Cost: O(log S + P log N) for S schedules and P ticks published ahead (_ahead.lua).
local old = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[5] == 'create' and old then return 3 end
if ARGV[5] == 'update' and not old then return 4 end
if ARGV[6] == '1' then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[3], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
end
if old == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local paused
if old then
  take_back_ahead(KEYS[5], KEYS[6], KEYS[7], KEYS[8], ARGV[1], now_ms())
  local parked = redis.call('ZREM', KEYS[4], ARGV[1]) == 1
  paused = not parked and not redis.call('ZSCORE', KEYS[2], ARGV[1])
else
  paused = ARGV[4] == '1'
end
if not paused then redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1]) end
if old then return 2 end
return 1
