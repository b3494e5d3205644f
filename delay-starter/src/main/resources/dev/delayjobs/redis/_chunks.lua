-- Included by scripts that write or delete many values at once.

-- Runs cmd on key with every value of list, 1000 at a time: unpack of several thousand values
-- overflows Lua's stack (about 8000), and a script that fails there has already popped its jobs.
-- option, when given, goes before the values (ZADD's 'LT', 'XX', 'NX'); a chunk of 1000 keeps
-- score and member pairs together. Returns the sum of the replies (what ZADD added, ZREM removed).
local function call_in_chunks(cmd, key, list, option)
  local total = 0
  for i = 1, #list, 1000 do
    local reply
    if option then
      reply = redis.call(cmd, key, option, unpack(list, i, math.min(i + 999, #list)))
    else
      reply = redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list)))
    end
    if type(reply) == 'number' then total = total + reply end
  end
  return total
end
