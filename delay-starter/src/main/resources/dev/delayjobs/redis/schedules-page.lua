-- schedules-page: a page of a queue's schedules with their next ticks, last outcomes and
-- declaration times (read-only).
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published (absent: paused or parked)
-- KEYS[3] schedule-outcomes: hash, name -> last outcome (see _ticks.lua)
-- KEYS[4] schedule-declared: zset, name -> when a running application last declared it
-- KEYS[5] schedules-parked: zset, name -> when last looked at (its spec unreadable)
-- ARGV[1] cursor: '0' for the first page, else the cursor the page before returned
-- ARGV[2] count: about how many schedules (1 to 1000; HSCAN's hint: a small hash comes whole, at most 128)
-- Returns { cursor ('0' after the last page), now (Redis clock, epoch ms),
--   then per schedule: name, value, tick or '', outcome or '', declared or '', parked '1' or '0' }.
-- Cost: O(count log S), payloads copied.
local count = tonumber(ARGV[2])
if count < 1 or count > 1000 then return redis.error_reply('count must be 1 to 1000, was ' .. ARGV[2]) end
local t = redis.call('TIME')
local scan = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', count)
local out = { scan[1], tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) }
local entries = scan[2]
for i = 1, #entries, 2 do
  local name = entries[i]
  out[#out + 1] = name
  out[#out + 1] = entries[i + 1]
  out[#out + 1] = redis.call('ZSCORE', KEYS[2], name) or ''
  out[#out + 1] = redis.call('HGET', KEYS[3], name) or ''
  out[#out + 1] = redis.call('ZSCORE', KEYS[4], name) or ''
  out[#out + 1] = redis.call('ZSCORE', KEYS[5], name) and '1' or '0'
end
return out
