--! include: _wake_marker, _delayed
-- payload-versions: how many waiting jobs (ready and delayed) are at each payload version, from a
-- bounded read (read-only; for the endpoint, which caches it). A record's version is its 'pv' header
-- (see JobEnvelope and PayloadVersions); a record without one is at version 1.
-- KEYS[1] delayed: zset (a group's delayed jobs are in <delayed>:<g>, the default group's in pages
--   <delayed>:\2<n>, each marked here: _delayed.lua; a mark met by c of the spread ranks stands for
--   c jobs spread over its zset)
-- KEYS[2] ready: list (its wake marker, at its head when there, is skipped: _wake_marker.lua)
-- KEYS[3] jobs: hash
-- ARGV[1] most-jobs: most waiting ids looked at: all of them when there are no more, else the head of
--   ready (up to half) and ids spread evenly over delayed by rank
-- ARGV[2] most-bytes: most record bytes read (HSTRLEN first): a record that would pass it is skipped
-- Returns {waiting, read, version, count, version, count, ...}; when read < waiting, each count is a
-- lower bound of the jobs at that version. A stale id of ready (its record gone) is not read.
-- Cost: O(most-jobs * log N) commands and at most most-bytes bytes copied, whatever the backlog and
-- the payload sizes.
local most, bytes = tonumber(ARGV[1]), tonumber(ARGV[2])
local delayed, ready = delayed_count(KEYS[1]), ready_length(KEYS[2])
local members = redis.call('ZCARD', KEYS[1])
local skip = redis.call('LLEN', KEYS[2]) - ready
local ids = {}
local from_ready = math.min(ready, delayed + ready <= most and most or math.floor(most / 2))
if from_ready > 0 then ids = redis.call('LRANGE', KEYS[2], skip, skip + from_ready - 1) end
local left = most - #ids
if delayed <= left then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local set = marked_set(KEYS[1], member)
    if set then
      for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do ids[#ids + 1] = id end
    else
      ids[#ids + 1] = member
    end
  end
elseif left > 0 and members > 0 then
  -- ranks spread evenly over the delayed zset; a mark hit by c of them stands for c jobs spread
  -- evenly over its group's zset, a job of the default group hit more than once is read once
  local step = members / left
  local hits, order = {}, {}
  for i = 0, left - 1 do
    local rank = math.floor(i * step)
    if not hits[rank] then order[#order + 1] = rank end
    hits[rank] = (hits[rank] or 0) + 1
  end
  for _, rank in ipairs(order) do
    local member = redis.call('ZRANGE', KEYS[1], rank, rank)[1]
    local set = member and marked_set(KEYS[1], member)
    if set then
      local card = redis.call('ZCARD', set)
      for j = 0, hits[rank] - 1 do
        local id = redis.call('ZRANGE', set, math.floor(j * card / hits[rank]), math.floor(j * card / hits[rank]))[1]
        if id then ids[#ids + 1] = id end
      end
    elseif member then
      ids[#ids + 1] = member
    end
  end
end
local counts, read = {}, 0
for _, id in ipairs(ids) do
  local size = redis.call('HSTRLEN', KEYS[3], id)
  if size > 0 and size <= bytes then
    bytes = bytes - size
    local rec = redis.call('HGET', KEYS[3], id)
    local version = '1'
    local len, start = string.match(rec, '^[0-9a-z]+,%-?[0-9a-z]+,%-?[0-9a-z]+|~(%d+):()')
    if len then
      version = string.match('&' .. string.sub(rec, start, start + tonumber(len) - 1), '&pv=(%d+)') or '1'
    end
    counts[version] = (counts[version] or 0) + 1
    read = read + 1
  end
end
local out = { delayed + ready, read }
for version, count in pairs(counts) do
  out[#out + 1] = version
  out[#out + 1] = count
end
return out
