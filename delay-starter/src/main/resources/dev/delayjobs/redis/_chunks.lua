-- Included by scripts that write or delete many values at once.

-- Runs cmd on key with every value of list, 1000 at a time: unpack of several thousand values
-- overflows Lua's stack (about 8000), and a script that fails there has already popped its jobs.
local function call_in_chunks(cmd, key, list)
  for i = 1, #list, 1000 do
    redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list)))
  end
end
