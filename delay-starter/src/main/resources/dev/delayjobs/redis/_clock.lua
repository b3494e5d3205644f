-- The Redis server's clock, which every due time, lease and memo is read by (never a client's).

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
