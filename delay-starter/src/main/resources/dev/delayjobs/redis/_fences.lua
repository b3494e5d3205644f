-- Claim fences (fences hash: instance -> oldest claim epoch accepted, see claim.lua) and the time
-- a forgotten instance's fence is kept (forgotten fences zset: instance -> when its fence may go).
-- An instance forgotten keeps its fence for a while: when its lease ran out it may be alive (a long
-- pause), and at shutdown its claimer may have a claim on its way; either must stay refused.

-- Raises the fence of instance to wanted (the caller names the epoch, so that a resent copy raises
-- it no further); it only ever rises. Returns the fence now.
local function raise_fence(fences_key, instance, wanted)
  local fence = tonumber(redis.call('HGET', fences_key, instance) or '0')
  wanted = tonumber(wanted)
  if wanted > fence then
    redis.call('HSET', fences_key, instance, wanted)
    fence = wanted
  end
  return fence
end

-- Removes instance from the instances zset and the workers hash; its fence, if any, is kept until kept_until.
local function forget_instance(instances_key, workers_key, fences_key, forgotten_key, instance, kept_until)
  redis.call('ZREM', instances_key, instance)
  redis.call('HDEL', workers_key, instance)
  if redis.call('HEXISTS', fences_key, instance) == 1 then redis.call('ZADD', forgotten_key, kept_until, instance) end
end

-- Deletes up to 100 fences whose time ran out, so that fences of instance ids that never return do
-- not pile up. O(log F) per fence deleted.
local function drop_old_fences(fences_key, forgotten_key, now)
  local gone = redis.call('ZRANGEBYSCORE', forgotten_key, '-inf', now, 'LIMIT', 0, 100)
  if #gone > 0 then
    redis.call('HDEL', fences_key, unpack(gone))
    redis.call('ZREM', forgotten_key, unpack(gone))
  end
end
