-- Ticks published ahead of their instant (DELAYED jobs due at the tick): indexed so that a change
-- of their schedule (remove, pause, another spec or payload) can take back those not yet due.
--   schedule-ahead: zset, every score 0, member the tick's job id '<name>@<epoch ms>' (13 digits
--   until the year 2286, so that lexical order is time order). A name has no '@' (names are letters,
--   digits, '.', '_', '-', ':'), so '[<name>@' .. '(<name>@:' holds that schedule's entries only.
-- Cost: O(log A) per tick indexed or pruned; a schedule has at most lookahead / period entries
-- pending (60 s / 100 ms = 600) plus a few past ones (each publication prunes up to 4).

-- Indexes a tick published ahead, and drops up to 4 of the schedule's entries whose instant has passed.
local function index_ahead(ahead_key, name, id, now)
  local past = redis.call('ZRANGEBYLEX', ahead_key, '[' .. name .. '@', '[' .. name .. '@' .. string.format('%d', now),
      'LIMIT', 0, 4)
  if #past > 0 then redis.call('ZREM', ahead_key, unpack(past)) end
  redis.call('ZADD', ahead_key, 0, id)
end

-- Deletes the jobs of the schedule's ticks published ahead whose instant is still to come (still
-- DELAYED at their tick: never due, never claimed), and the schedule's entries. Returns how many.
local function take_back_ahead(ahead_key, jobs_key, delayed_key, name, now)
  local low, high = '[' .. name .. '@', '(' .. name .. '@:'
  local taken = 0
  for _, id in ipairs(redis.call('ZRANGEBYLEX', ahead_key, low, high)) do
    local tick = tonumber(string.match(id, '@(%d+)$'))
    local due = redis.call('ZSCORE', delayed_key, id)
    if tick and tick > now and due and tonumber(due) == tick then
      redis.call('ZREM', delayed_key, id)
      redis.call('HDEL', jobs_key, id)
      taken = taken + 1
    end
  end
  redis.call('ZREMRANGEBYLEX', ahead_key, low, high)
  return taken
end
