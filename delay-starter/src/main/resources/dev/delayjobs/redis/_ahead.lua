--! include: _delayed
-- Ticks published ahead of their instant (DELAYED jobs due at the tick): indexed so that a change
-- of their schedule (remove, pause, another spec or payload) can take back those not yet due.
--   schedule-ahead: zset, every score 0, member the tick's job id '<name>@<epoch ms>'. A name has
--     no '@' (names are letters, digits, '.', '_', '-', ':'), so the lexical range '[<name>@' ..
--     '(<name>@:' holds that schedule's entries only.
--   schedule-ahead-due: zset, the same members scored by their tick, so that entries whose instant
--     has passed are dropped (up to 200 per due read), and neither set outlives its ticks for long.
-- Cost: O(log A) per tick indexed or dropped; a schedule has at most lookahead / period entries
-- whose instant is to come (60 s / 100 ms = 600).

local function index_ahead(ahead_key, ahead_due_key, id, tick)
  redis.call('ZADD', ahead_key, 0, id)
  redis.call('ZADD', ahead_due_key, tick, id)
end

-- Drops up to max entries whose instant has passed (their jobs are due: nothing to take back).
local function prune_ahead(ahead_key, ahead_due_key, now, max)
  local past = redis.call('ZRANGEBYSCORE', ahead_due_key, '-inf', now, 'LIMIT', 0, max)
  if #past > 0 then
    redis.call('ZREM', ahead_due_key, unpack(past))
    redis.call('ZREM', ahead_key, unpack(past))
  end
end

-- Deletes the jobs of the schedule's ticks published ahead whose instant is still to come (still
-- DELAYED at their tick: never due, never claimed), and the schedule's entries. Returns how many.
local function take_back_ahead(ahead_key, ahead_due_key, jobs_key, delayed_key, name, now)
  local low, high = '[' .. name .. '@', '(' .. name .. '@:'
  local taken = 0
  for _, id in ipairs(redis.call('ZRANGEBYLEX', ahead_key, low, high)) do
    local tick = tonumber(string.match(id, '@(%d+)$'))
    -- still delayed until its tick (its page found by the tick: _delayed.lua)
    local due = tick and delayed_score(delayed_key, nil, id, tick)
    if tick and tick > now and due and tonumber(due) == tick then
      remove_delayed(delayed_key, nil, id, tick)
      redis.call('HDEL', jobs_key, id)
      taken = taken + 1
    end
    redis.call('ZREM', ahead_due_key, id)
  end
  redis.call('ZREMRANGEBYLEX', ahead_key, low, high)
  return taken
end
