-- Shared by every script (prepended at load time): the job record format and the server clock.
-- A record is one string: gen|attempts|running|dueAt|publishedAt|payload
--   gen        publish sequence number of the queue: tells a replacement from the job a consumer claimed
--   attempts   deliveries so far (counted when a consumer claims the job)
--   running    1 while a consumer holds the job, else 0
--   dueAt      epoch ms: the Redis server's clock plus the delay, or the instant publishAt was given
--              (read with the publisher's clock)
--   publishedAt  epoch ms on the Redis server's clock
--   payload    the job's JSON, untouched (never decoded here, so numbers keep their precision)

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function decode(rec)
  local gen, attempts, running, due, published, payload =
    string.match(rec, '^(%d+)|(%d+)|([01])|(%-?%d+)|(%-?%d+)|(.*)$')
  if not gen then return nil end
  return { gen = gen, attempts = tonumber(attempts), running = running, due = due,
           published = published, payload = payload }
end

local function encode(r)
  return r.gen .. '|' .. r.attempts .. '|' .. r.running .. '|' .. r.due .. '|' .. r.published .. '|' .. r.payload
end

-- Tells the queue's timers that an earlier due time exists, only when it beats the current head.
local function wake_if_head(delayed_key, channel, due, old_head)
  if old_head == nil or tonumber(due) < old_head then
    redis.call('PUBLISH', channel, due)
  end
end

local function head_score(delayed_key)
  local head = redis.call('ZRANGE', delayed_key, 0, 0, 'WITHSCORES')
  if head[2] then return tonumber(head[2]) end
  return nil
end
