-- Redisson resends a script after a response timeout (its retryAttempts), and after a stall every
-- copy runs. A state change whose repetition would do harm (publish, claim, cancel) is named by a
-- request id: its first run leaves a short-lived memo of its reply, and a copy returns that instead
-- of running again. The memo lives MEMO_MS, defined on the line LuaScript puts first in every
-- script that includes this file: the longest time Redisson may resend a copy under the client's
-- timeout and retry settings, plus a margin for a stalled Redis (RequestMemo.java).

local function replayed(memo_key)
  local memo = redis.call('GET', memo_key)
  if memo then return cjson.decode(memo) end
  return nil
end

local function remember(memo_key, reply)
  redis.call('SET', memo_key, cjson.encode(reply), 'PX', MEMO_MS)
  return reply
end
