--! include: _clock
-- The last outcome of a schedule's ticks, written by the scripts that end a job (ack, retry, bury,
-- recover-expired) and by tick.lua (a tick skipped for overlap). A job is a tick when its id is
-- <name>@<digits> and the queue has a schedule by that name (see docs/schedules.md).
--   schedule-outcomes: hash, name -> '<outcome>,<epoch ms>,<tick epoch ms>'
--   stats: hash, its 'ticks-<outcome>' counters (outcome: handled, retrying, dead, skipped)
-- Cost: O(1) per job (an id is at most 256 characters), nothing for a queue without schedules.

-- Whether the queue has schedules at all: asked once per call, so that a queue without pays one EXISTS.
local function has_schedules(schedules_key)
  return redis.call('EXISTS', schedules_key) == 1
end

-- Records outcome for the job id if it is a tick of one of the queue's schedules.
local function record_tick_outcome(schedules_key, outcomes_key, stats_key, id, outcome, now)
  local name, tick = string.match(id, '^(.+)@(%d+)$')
  if not name or redis.call('HEXISTS', schedules_key, name) == 0 then return end
  redis.call('HSET', outcomes_key, name, outcome .. ',' .. string.format('%d', now) .. ',' .. tick)
  redis.call('HINCRBY', stats_key, 'ticks-' .. outcome, 1)
end
