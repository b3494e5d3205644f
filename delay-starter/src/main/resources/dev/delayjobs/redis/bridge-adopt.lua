--! include: _clock, _base36, _record, _wake, _delayed
-- bridge-adopt: turns elements of a Redisson RDelayedQueue into jobs of the queue that bridges it.
-- Each element leaves Redisson's keys in the same call that stores it as a job (or, when Java could
-- not read it, as a dead job with the reason), so it is always in exactly one place: still
-- Redisson's, or ours. An element another consumer took meanwhile is skipped.
-- KEYS[1] target: Redisson's destination list (due elements, as encoded by the codec)
-- KEYS[2] timeouts: Redisson's timeout set (zset of packed elements, score = due time in epoch ms,
--   publisher's clock)
-- KEYS[3] pending: Redisson's list of the same packed elements, in offer order
-- KEYS[4] jobs: hash
-- KEYS[5] delayed: zset of marks (an adopted job waits in a page <delayed>:\2<n>: _delayed.lua)
-- KEYS[6] ready: list
-- KEYS[7] stats: hash
-- KEYS[8] dead: zset
-- KEYS[9] errors: hash
-- ARGV[1] wake: the wake channel
-- ARGV[2] count: the element count n
-- ARGV[3..] source, element, id, body: per element: source ('t' an element of the target list, 'p'
--   a packed element read from the head of the pending list, 'z' one read from the timeout set),
--   the element as stored, the new job's id, and 'j' .. payload JSON or 'x' .. reason
-- Returns {jobs created, jobs created dead, elements not found, elements deferred}.
-- An element is looked for only within WINDOW entries of either end of its list (LPOS ... MAXLEN),
-- and a call compares at most SEARCH list entries in all: one of the timeout set can lie anywhere in
-- the pending list (due soon, offered after many due late), and removing it from the middle of a
-- long list costs its position. One not reached is deferred (left where it is, for a later call);
-- when one lies deeper than WINDOW in the pending list, the call moves ROTATE entries of that list
-- from its tail to its head (RPOPLPUSH), so that later calls find it near the tail. The pending
-- list's order (offer order, which only RDelayedQueue's own poll, peek and readAll show) changes,
-- nothing else.
-- Cost: O(n log N + SEARCH + ROTATE) whatever the length N of Redisson's lists.
local WINDOW = 1000
local SEARCH = 20000
local ROTATE = 1000
-- due times outside what a job record holds (a score of -inf or inf written by hand) are clamped
local LATEST_DUE = 253402300799999

-- Removes element from the list if it lies within WINDOW entries of either end: true when it did,
-- false when it is not there, nil when the call's SEARCH budget (list entries compared, by LPOS
-- and LREM) ran out first. Elements read at a list's head are found at once; the budget is spent
-- on those that are not.
local search = SEARCH
local function remove_near_an_end(list, element)
  local reach = math.min(WINDOW, search)
  if reach < 1 then return nil end -- (MAXLEN 0 would search the whole list)
  local at = redis.call('LPOS', list, element, 'MAXLEN', reach)
  if at then
    search = search - 2 * (at + 1)
    redis.call('LREM', list, 1, element)
    return true
  end
  search = search - reach
  local whole = reach == WINDOW
  reach = math.min(WINDOW, search)
  if reach < 1 then return nil end
  at = redis.call('LPOS', list, element, 'RANK', -1, 'MAXLEN', reach)
  if at then
    search = search - 2 * (redis.call('LLEN', list) - at)
    redis.call('LREM', list, -1, element)
    return true
  end
  search = search - reach
  if whole and reach == WINDOW then return false end
  return nil
end

local now = now_ms()
local old_head = head_score(KEYS[5])
local n = tonumber(ARGV[2])
local created, dead, gone, deferred = 0, 0, 0, 0
local deep = false
local earliest = nil
-- the call's delayed jobs, {due, id, ...}: delayed at once after the loop (one page placement)
local delayed = {}
for i = 0, n - 1 do
  local base = 3 + i * 4
  local source, element, id, body = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
  local due, later = nil, false
  if source ~= 't' then
    local score = redis.call('ZSCORE', KEYS[2], element)
    if score then
      local removed = remove_near_an_end(KEYS[3], element)
      -- not found in a list no longer than both windows: it is not in the list (it was searched whole)
      if removed or (removed == false and redis.call('LLEN', KEYS[3]) <= 2 * WINDOW) then
        redis.call('ZREM', KEYS[2], element)
        due = math.min(math.max(tonumber(score) or 0, 0), LATEST_DUE)
      else
        later = true
        deep = deep or removed == false
      end
    elseif source == 'p' then
      -- in the pending list but not in the timeout set: left behind by a partial write, never due;
      -- dropped, near the head where it was read (an element transferred meanwhile left both)
      remove_near_an_end(KEYS[3], element)
    end
  else
    -- read at the head: still there, it is still near it (equal elements are interchangeable)
    local removed = remove_near_an_end(KEYS[1], element)
    if removed then
      due = now
    else
      later = removed == nil
    end
  end
  if later then
    deferred = deferred + 1
  elseif due == nil then
    gone = gone + 1
  else
    -- a generated id (72 random bits) that meets a job: next to never; a suffix keeps both
    if redis.call('HEXISTS', KEYS[4], id) == 1 then id = id .. '-' .. to36(now) end
    local gen = redis.call('HINCRBY', KEYS[7], 'published', 1)
    if string.sub(body, 1, 1) == 'x' then
      redis.call('HSET', KEYS[4], id, encode({ gen = gen, due = due, published = now,
                                               payload = '' }))
      redis.call('ZADD', KEYS[8], now, id)
      redis.call('HSET', KEYS[9], id, string.sub(body, 2))
      redis.call('HINCRBY', KEYS[7], 'dead', 1)
      dead = dead + 1
    else
      redis.call('HSET', KEYS[4], id, encode({ gen = gen, due = due, published = now,
                                               payload = string.sub(body, 2) }))
      if due <= now then
        redis.call('RPUSH', KEYS[6], id)
      else
        delayed[#delayed + 1] = due
        delayed[#delayed + 1] = id
        if earliest == nil or due < earliest then earliest = due end
      end
      created = created + 1
    end
  end
end
if #delayed > 0 then add_delayed(KEYS[5], '', delayed, now) end
if earliest ~= nil then wake_if_head(KEYS[5], ARGV[1], earliest, old_head) end
if deep then
  for _ = 1, ROTATE do redis.call('RPOPLPUSH', KEYS[3], KEYS[3]) end
end
return { created, dead, gone, deferred }
