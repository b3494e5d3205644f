--! include: _clock, _record, _wake, _ticks, _delayed, _ahead
-- tick: for each schedule, publishes the job of its current tick and stores its next tick, in one
-- call, only if the schedule still stands where the caller read it (compare-and-set).
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published (epoch ms)
-- KEYS[3] jobs: hash
-- KEYS[4] delayed: zset of marks (a tick's job waits in a page <delayed>:\2<n>: _delayed.lua)
-- KEYS[5] ready: list
-- KEYS[6] stats: hash (its 'published' counter is the gen sequence, as in publish.lua)
-- KEYS[7] control: hash, its 'partitions' field: the partition count the queue is laid out in, when set
-- KEYS[8] dead: zset
-- KEYS[9] schedule-last: hash, name -> the last tick whose job was published (epoch ms)
-- KEYS[10] schedule-outcomes: hash, name -> last outcome (a tick skipped for overlap, see _ticks.lua)
-- KEYS[11] schedule-ahead: zset, the jobs of ticks published ahead of their instant, by name (see _ahead.lua)
-- KEYS[12] schedule-ahead-due: zset, the same by tick
-- These are the keys of the partition that holds the queue's schedules (partition 0, the queue's
-- own when it has one): a tick's job is stored there, with the schedule, whatever partition its id
-- would route to, so that the job and the next tick are written in one call (one slot).
-- ARGV[1] wake: the wake channel
-- ARGV[2] partitions: the partition count the caller found the queue laid out in
-- ARGV[3] ahead: '1' indexes each job published ahead of its tick in KEYS[11] and KEYS[12], so that a change of
--   its schedule takes it back; '0' does not (a test's fast forward, which makes the jobs due at once)
-- ARGV[4..] name, spec, tick, fire, fire-at, next, overlap: per schedule: its name, the spec Java computed
--   with (the value's part before its newline), the tick read (epoch ms), fire ('1' publish the job of
--   the tick at fire-at, '0' skip it: a misfire), fire-at (the due time of the job, epoch ms: the tick,
--   or the latest missed tick), next (the tick after, epoch ms, or '' when the spec has none) and
--   overlap ('skip': no job while the job of the schedule's last published tick has not ended, that
--   is while its record is in jobs and not in dead: waiting, running or waiting for a retry; 'run')
-- The job's id is name@fire-at (decimal epoch ms) and its payload the schedule's; it is stored with
-- HSETNX, so a tick never makes two jobs. Its due time is fire-at: DELAYED until then (READY when due).
-- A tick skipped for overlap is recorded as the schedule's last outcome ('skipped') and counted;
-- its next tick is stored all the same.
-- Returns per schedule: 1 published, 2 skipped (misfire), 3 skipped (overlap), 0 moved on meanwhile;
-- or the error 'LAYOUT <count>', changing nothing, when the queue is laid out in another number of
-- partitions than the caller found (the schedules are then in another partition's keys).
-- Cost: O(K (log S + log N + log A)) for K schedules and A ticks published ahead (the overlap check:
-- O(1 + log D) for D dead jobs).
local layout = redis.call('HGET', KEYS[7], 'partitions')
if layout and layout ~= ARGV[2] then return redis.error_reply('LAYOUT ' .. layout) end
local now = now_ms()
local old_head = head_score(KEYS[4])
local earliest = nil
local result = {}
local ahead = ARGV[3] == '1'
for base = 4, #ARGV, 7 do
  local name, spec, tick, fire, fire_at, next_tick = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3],
      tonumber(ARGV[base + 4]), ARGV[base + 5]
  local overlap = ARGV[base + 6]
  local value = redis.call('HGET', KEYS[1], name)
  local stored = redis.call('ZSCORE', KEYS[2], name)
  local status = 0
  if value and stored and tonumber(stored) == tonumber(tick) and string.sub(value, 1, #spec + 1) == spec .. '\n' then
    status = 2
    if fire == '1' and overlap == 'skip' then
      local last = redis.call('HGET', KEYS[9], name)
      local previous = last and name .. '@' .. last
      if previous and redis.call('HEXISTS', KEYS[3], previous) == 1 and not redis.call('ZSCORE', KEYS[8], previous) then
        status = 3
        fire = '0'
        record_tick_outcome(KEYS[1], KEYS[10], KEYS[6], name .. '@' .. string.format('%d', fire_at), 'skipped', now)
      end
    end
    if fire == '1' then
      status = 1
      local id = name .. '@' .. string.format('%d', fire_at)
      redis.call('HSET', KEYS[9], name, string.format('%d', fire_at))
      local gen = redis.call('HINCRBY', KEYS[6], 'published', 1)
      local payload = string.sub(value, #spec + 2)
      if redis.call('HSETNX', KEYS[3], id, new_record(gen, fire_at, now, payload)) == 1 then
        if fire_at <= now then
          redis.call('RPUSH', KEYS[5], id)
        else
          add_delayed(KEYS[4], '', { fire_at, id }, now)
          if ahead then index_ahead(KEYS[11], KEYS[12], id, fire_at) end
          if earliest == nil or fire_at < earliest then earliest = fire_at end
        end
      end
    end
    if next_tick == '' then
      redis.call('ZREM', KEYS[2], name)
    else
      redis.call('ZADD', KEYS[2], tonumber(next_tick), name)
    end
  end
  result[#result + 1] = status
end
if earliest then wake_if_head(KEYS[4], ARGV[1], earliest, old_head) end
return result
