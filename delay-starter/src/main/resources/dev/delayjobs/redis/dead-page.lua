-- dead-page: the most recent dead jobs, newest first (read-only).
-- KEYS[1] dead (zset)   KEYS[2] jobs (hash)   KEYS[3] errors (hash)
-- ARGV[1] offset   ARGV[2] count
-- Returns {total, id, died at, attempts, last error, ...}. Cost: O(log N + count).
local first = tonumber(ARGV[1])
local page = redis.call('ZREVRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = { redis.call('ZCARD', KEYS[1]) }
for i = 1, #page, 2 do
  local id = page[i]
  local rec = redis.call('HGET', KEYS[2], id)
  local r = rec and decode(rec)
  out[#out + 1] = id
  out[#out + 1] = page[i + 1]
  out[#out + 1] = r and r.attempts or 0
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
end
return out
