--! include: _clock
-- consumer-instances: the ids of the instances holding (or having held) a lease on a queue, or of
-- those whose lease has run out, so that recover.lua and queue-stats.lua can be handed their
-- active lists as declared keys (read-only; run on the master).
-- KEYS[1] instances (zset)
-- ARGV[1] 'expired' for the instances whose lease ran out (at most 100, as recover.lua takes), else all
-- Returns the instance ids. Cost: O(I) for I instances (O(log I + 100) for the expired ones).
if ARGV[1] == 'expired' then
  return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, 100)
end
return redis.call('ZRANGE', KEYS[1], 0, -1)
