--! include: _claims, _record
-- dead-page: dead jobs, newest first (read-only). Order: died-at time descending, then id descending
-- byte by byte (the dead set's own reverse order), so pages of several partitions merge alike.
-- KEYS[1] dead: zset, id -> died at
-- KEYS[2] jobs: hash
-- KEYS[3] errors: hash
-- KEYS[4] claims: hash, id -> claim entry (see _claims.lua): where the attempts are read
-- ARGV[1] count: 1 to 1000 (more is refused with 'PAGE ...', reading nothing)
-- ARGV[2] offset: how many to skip from the newest; used when no cursor is given
-- ARGV[3] cursor-time: died-at time of the last job of the previous page, or '' for none
-- ARGV[4] cursor-id: id of that job; the page starts right after it, whether it is still dead or not
-- ARGV[5] most-bytes: most record bytes read for the payload versions (HSTRLEN first): a record that
--   would pass it is not read, its version '-'
-- Returns {total, id, died at, attempts, last error, payload version, ...}; the payload version is
-- the text of the record's 'pv' header (see JobEnvelope and PayloadVersions), '' when the record has
-- none (version 1), '-' when the record was not read (past most-bytes, gone, or not a job record).
-- Cost: O(log N + count) by offset (rank access); O(log N * log T + count) by cursor, T the jobs
-- that died in the same millisecond as the cursor's job; never more than count claim entries and
-- most-bytes record bytes read, whatever the payload sizes.
local MAX = 1000
local count, bytes = tonumber(ARGV[1]), tonumber(ARGV[5]) or 0
if not count or count < 1 or count > MAX then
  return redis.error_reply('PAGE count must be between 1 and ' .. MAX .. ', was ' .. tostring(ARGV[1]))
end

-- a < b byte by byte, as the sorted set orders members (Lua's own < follows the server's locale)
local function bytes_before(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- the 'pv' header of the job's record, read only while the byte budget lasts (a dead job keeps its
-- record, untouched, in jobs): '' without the header, '-' when not read
local function payload_version(id)
  local size = redis.call('HSTRLEN', KEYS[2], id)
  if size == 0 or size > bytes then return '-' end
  bytes = bytes - size
  local rec = redis.call('HGET', KEYS[2], id)
  if not record_header(rec) then return '-' end
  local len, start = string.match(rec, '^[0-9a-z]+,%-?[0-9a-z]+,%-?[0-9a-z]+|~(%d+):()')
  if not len then return '' end
  return string.match('&' .. string.sub(rec, start, start + tonumber(len) - 1), '&pv=([^&]*)') or ''
end

local first = tonumber(ARGV[2])
if ARGV[3] ~= '' then
  local score, id = tonumber(ARGV[3]), ARGV[4]
  local s = redis.call('ZSCORE', KEYS[1], id)
  if s and tonumber(s) == score then
    first = redis.call('ZREVRANK', KEYS[1], id) + 1
  else
    -- the cursor's job left the set: among the jobs that died in the same millisecond (ranks lo to
    -- hi - 1, ids descending), find by bisection the first whose id sorts below the cursor's
    local lo = redis.call('ZCOUNT', KEYS[1], '(' .. score, '+inf')
    local hi = lo + redis.call('ZCOUNT', KEYS[1], score, score)
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if bytes_before(redis.call('ZREVRANGE', KEYS[1], mid, mid)[1], id) then hi = mid else lo = mid + 1 end
    end
    first = lo
  end
end
local page = redis.call('ZREVRANGE', KEYS[1], first, first + count - 1, 'WITHSCORES')
local out = { redis.call('ZCARD', KEYS[1]) }
for i = 1, #page, 2 do
  local id = page[i]
  local c = claim_of(redis.call('HGET', KEYS[4], id))
  out[#out + 1] = id
  out[#out + 1] = page[i + 1]
  out[#out + 1] = c and c.attempts or 0
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
  out[#out + 1] = payload_version(id)
end
return out
