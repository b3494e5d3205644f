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
-- Returns {jobs created, jobs created dead, elements not found, elements deferred}.
-- An element is looked for only within WINDOW entries of either end of its list (LPOS ... MAXLEN):
-- one of the timeout set can lie anywhere in the pending list (due soon, offered after many due
-- late), and removing it from the middle of a long list costs its position. One found deeper is
-- deferred: left in Redisson's keys, and the call moves ROTATE entries of the pending list from its
-- tail to its head (RPOPLPUSH), so that later calls find it near the tail; the pending list's order
-- (offer order, which only RDelayedQueue's own poll and readAll show) changes, nothing else.
-- Cost: O(n (log N + WINDOW) + ROTATE) whatever the length N of the lists: 100 elements deep in a
-- 500,000-entry list take a few ms (docs/migration.md).
local WINDOW = 1000
local ROTATE = 1000
-- due times outside what a job record holds (a score of -inf or inf written by hand) are clamped
local LATEST_DUE = 253402300799999

-- Removes element from the list if it lies within WINDOW entries of either end; whether it did.
local function remove_near_an_end(list, element)
  if redis.call('LPOS', list, element, 'MAXLEN', WINDOW) then
    redis.call('LREM', list, 1, element)
    return true
  end
  if redis.call('LPOS', list, element, 'RANK', -1, 'MAXLEN', WINDOW) then
    redis.call('LREM', list, -1, element)
    return true
  end
  return false
end

local now = now_ms()
local old_head = head_score(KEYS[5])
local n = tonumber(ARGV[2])
local created, dead, gone, deferred = 0, 0, 0, 0
local earliest = nil
for i = 0, n - 1 do
  local base = 3 + i * 4
  local source, element, id, body = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
  local due = nil
  local deep = false
  if source ~= 't' then
    local score = redis.call('ZSCORE', KEYS[2], element)
    if score then
      -- a list no longer than both windows was searched whole: the element is not in it
      if remove_near_an_end(KEYS[3], element) or redis.call('LLEN', KEYS[3]) <= 2 * WINDOW then
        redis.call('ZREM', KEYS[2], element)
        due = math.min(math.max(tonumber(score) or 0, 0), LATEST_DUE)
      else
        deep = true
      end
    elseif source == 'p' then
      -- in the pending list but not in the timeout set: left behind by a partial write, never due;
      -- dropped, near the head where it was read (an element transferred meanwhile left both)
      remove_near_an_end(KEYS[3], element)
    end
  elseif remove_near_an_end(KEYS[1], element) then
    -- read at the head: still there, it is still near it (equal elements are interchangeable)
    due = now
  end
  if deep then
    deferred = deferred + 1
  elseif due == nil then
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
if deferred > 0 then
  for _ = 1, ROTATE do redis.call('RPOPLPUSH', KEYS[3], KEYS[3]) end
end
return { created, dead, gone, deferred }
