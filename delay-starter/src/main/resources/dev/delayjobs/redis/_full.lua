-- A full Redis (used memory over maxmemory, policy noeviction) refuses a script's first write that
-- may add data (SET, HSET, HINCRBY, ZADD, RPUSH...), but nothing once the script has written: it is
-- never stopped midway (Redis 6.2 and 7 alike). Publish is refused so, before it stores anything.
-- The scripts that keep a queue draining (heartbeat, claim, start, recover) must run when full, as
-- only draining frees memory: they call this first. HDEL of a field no hash holds (ids are never
-- empty) is a write that adds nothing, after which Redis lets the script run whole.
local function run_even_when_full(hash_key)
  redis.call('HDEL', hash_key, '')
end
