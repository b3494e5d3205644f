--! include: _clock
-- bridge-peek: reads elements of a Redisson RDelayedQueue without taking them (read-only); the
-- caller decodes them and hands them to bridge-adopt.lua, which takes only those still there.
-- KEYS[1] target: Redisson's destination list (see bridge-adopt.lua)
-- KEYS[2] timeouts: Redisson's timeout set (zset)
-- KEYS[3] pending: Redisson's pending list
-- ARGV[1] what: 'target' (the head of the target list), 'pending' (the head of the pending list,
--   with each element's due time: every element not yet due, in offer order), or 'due' (elements
--   of the timeout set due for ARGV[3] ms or more: what Redisson's transfer left)
-- ARGV[2] max: at most this many elements
-- ARGV[3] overdue-ms: for 'due', how long overdue
-- Returns a flat list of triples: element as stored, its value (the codec's bytes), due time in
-- epoch ms ('' for the target list, whose elements carry none; false when gone from the timeout set).
-- Cost: O(M) for 'target'; O(M log N) for the others.
local max = tonumber(ARGV[2])
local out = {}
if ARGV[1] == 'target' then
  for _, v in ipairs(redis.call('LRANGE', KEYS[1], 0, max - 1)) do
    out[#out + 1] = v; out[#out + 1] = v; out[#out + 1] = ''
  end
  return out
end
local elements, scores = {}, {}
if ARGV[1] == 'pending' then
  elements = redis.call('LRANGE', KEYS[3], 0, max - 1)
  for i, v in ipairs(elements) do scores[i] = redis.call('ZSCORE', KEYS[2], v) end
else
  local pairs = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now_ms() - tonumber(ARGV[3]), 'WITHSCORES', 'LIMIT', 0, max)
  for i = 1, #pairs, 2 do
    elements[#elements + 1] = pairs[i]
    scores[#scores + 1] = pairs[i + 1]
  end
end
for i, v in ipairs(elements) do
  local _, value = struct.unpack('Bc0Lc0', v)
  out[#out + 1] = v; out[#out + 1] = value; out[#out + 1] = scores[i] or false
end
return out
