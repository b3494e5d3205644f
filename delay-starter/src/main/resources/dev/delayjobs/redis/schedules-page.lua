-- schedules-page: a page of a queue's schedules with their next ticks (read-only).
-- KEYS[1] schedules: hash, name -> spec, a newline, payload
-- KEYS[2] schedule-ticks: zset, name -> next tick not yet published (absent: paused)
-- ARGV[1] cursor: '0' for the first page, else the cursor the page before returned
-- ARGV[2] count: about how many schedules (1 to 1000; HSCAN's hint: a small hash comes whole, at most 128)
-- Returns { cursor ('0' after the last page), name, value, tick or '', ... }.
-- Cost: O(count log S), payloads copied.
local count = tonumber(ARGV[2])
if count < 1 or count > 1000 then return redis.error_reply('count must be 1 to 1000, was ' .. ARGV[2]) end
local scan = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', count)
local out = { scan[1] }
local entries = scan[2]
for i = 1, #entries, 2 do
  local tick = redis.call('ZSCORE', KEYS[2], entries[i])
  out[#out + 1] = entries[i]
  out[#out + 1] = entries[i + 1]
  out[#out + 1] = tick or ''
end
return out
