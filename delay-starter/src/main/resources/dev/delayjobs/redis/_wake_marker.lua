-- The wake marker (docs/architecture.md#groups): a consumer with nothing to do waits on the queue's
-- ready list alone (BLMOVE ready ready, up to 1 s). Grouped jobs go to their groups' lists, so a
-- script that makes one ready, or puts a parked group back in turn, while ready is empty pushes
-- WAKE onto ready: the waiting consumers return at once and claim. WAKE is never a job id (ids are
-- not blank); a claim drops it before it visits the groups, or pops it as a stale id (no record).
-- At most one is in ready, always at its head: it is pushed only onto an empty list, and a push
-- onto the front of ready drops it first (the ids pushed wake the consumers themselves). Counts of
-- ready leave it out. Each partition has its own ready list: the scripts wake their own.
local WAKE = ''

-- Wakes the consumers waiting on ready: pushes WAKE when ready is empty. Cost: O(1).
local function wake_consumers(ready_key)
  if redis.call('LLEN', ready_key) == 0 then redis.call('RPUSH', ready_key, WAKE) end
end

-- Drops WAKE from the head of ready; call before pushing ids onto the front of ready. Cost: O(1).
local function drop_wake(ready_key)
  if redis.call('LINDEX', ready_key, 0) == WAKE then redis.call('LPOP', ready_key) end
end

-- How many ids ready holds, WAKE left out. Cost: O(1).
local function ready_length(ready_key)
  local n = redis.call('LLEN', ready_key)
  if n > 0 and redis.call('LINDEX', ready_key, 0) == WAKE then n = n - 1 end
  return n
end
