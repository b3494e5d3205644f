-- bridge-adopt: turns elements of a Redisson RDelayedQueue into jobs of the queue that bridges it.
-- Each element leaves Redisson's keys in the same call that stores it as a job (or, when Java could
-- not read it, as a dead job with the reason), so it is always in exactly one place: still
-- Redisson's, or ours. An element another consumer took meanwhile is skipped.
-- KEYS[1] target list (Redisson's destination list: due elements, as encoded by the codec)
-- KEYS[2] timeout set (zset of packed elements, score = due time in epoch ms, publisher's clock)
-- KEYS[3] pending list (Redisson's list of the same packed elements, in offer order)
-- KEYS[4] jobs (hash)   KEYS[5] delayed (zset)   KEYS[6] ready (list)
-- KEYS[7] stats (hash)  KEYS[8] dead (zset)      KEYS[9] errors (hash)
-- ARGV[1] wake channel  ARGV[2] element count n
-- then per element 4 values: source ('t' an element of the target list, 'p' a packed element read
-- from the head of the pending list, 'z' one read from the timeout set), the element as stored, the
-- new job's id, and 'j' .. payload JSON or 'x' .. reason
-- Returns {jobs created, jobs created dead, elements not found}.
-- Cost: O(n (log N + P)) where P is the element's position in its list: the target list is read from
-- its head, the pending list in offer order, so P stays small for both.
local now = now_ms()
local old_head = head_score(KEYS[5])
local n = tonumber(ARGV[2])
local created, dead, gone = 0, 0, 0
local earliest = nil
for i = 0, n - 1 do
  local base = 3 + i * 4
  local source, element, id, body = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
  local due = nil
  if source ~= 't' then
    local score = redis.call('ZSCORE', KEYS[2], element)
    if score then
      redis.call('ZREM', KEYS[2], element)
      redis.call('LREM', KEYS[3], 1, element)
      due = tonumber(score)
    elseif source == 'p' then
      -- in the pending list but not in the timeout set: left behind by a partial write, never due;
      -- dropped, near the head where it was read (an element transferred meanwhile left both)
      redis.call('LREM', KEYS[3], 1, element)
    end
  elseif redis.call('LREM', KEYS[1], 1, element) == 1 then
    due = now
  end
  if due == nil then
    gone = gone + 1
  else
    -- a generated id (72 random bits) that meets a job: next to never; a suffix keeps both
    if redis.call('HEXISTS', KEYS[4], id) == 1 then id = id .. '-' .. to36(now) end
    local gen = redis.call('HINCRBY', KEYS[7], 'published', 1)
    if string.sub(body, 1, 1) == 'x' then
      redis.call('HSET', KEYS[4], id, encode({ gen = gen, attempts = 0, suspect = 0, hold = FREE, due = due, published = now,
                                               payload = '' }))
      redis.call('ZADD', KEYS[8], now, id)
      redis.call('HSET', KEYS[9], id, string.sub(body, 2))
      redis.call('HINCRBY', KEYS[7], 'dead', 1)
      dead = dead + 1
    else
      redis.call('HSET', KEYS[4], id, encode({ gen = gen, attempts = 0, suspect = 0, hold = FREE, due = due, published = now,
                                               payload = string.sub(body, 2) }))
      if due <= now then
        redis.call('RPUSH', KEYS[6], id)
      else
        redis.call('ZADD', KEYS[5], due, id)
        if earliest == nil or due < earliest then earliest = due end
      end
      created = created + 1
    end
  end
end
if earliest ~= nil then wake_if_head(KEYS[5], ARGV[1], earliest, old_head) end
return { created, dead, gone }
