-- The head of a queue's delayed set, and the wake message that tells timers of an earlier one.

-- Tells the queue's timers that an earlier due time exists, only when it beats the current head.
local function wake_if_head(delayed_key, channel, due, old_head)
  if old_head == nil or tonumber(due) < old_head then
    -- pcall: a wake that cannot be sent (an ACL user without channel permission, say) must not
    -- fail the state change it announces; the sweep moves the job anyway
    redis.pcall('PUBLISH', channel, due)
  end
end

local function head_score(delayed_key)
  local head = redis.call('ZRANGE', delayed_key, 0, 0, 'WITHSCORES')
  if head[2] then return tonumber(head[2]) end
  return nil
end
