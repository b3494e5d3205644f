-- claim: a consumer takes up to n ready jobs; each becomes RUNNING, counts an attempt and is
-- remembered in the consumer instance's active list until acked, retried or recovered.
-- KEYS[1] ready (list)   KEYS[2] active:<instance> (list)   KEYS[3] jobs (hash)
-- KEYS[4] delayed (zset) KEYS[5] dead (zset)      KEYS[6] errors (hash)   KEYS[7] stats (hash)
-- KEYS[8] instances (zset)
-- ARGV[1] n   ARGV[2] instance id   ARGV[3] lease ms
-- The instance is entered in instances if missing (it may have been presumed dead and removed),
-- so that no active list exists without a lease that would let another instance recover it.
-- Ready may hold stale ids (a job cancelled, rescheduled or replaced after it became ready): an id
-- whose record is gone, delayed, dead or already running is dropped here. A record that is not in
-- the job format (written by hand, or corrupted) goes to the dead set, never to a consumer.
-- Returns {server now, id1, record1, id2, record2, ...}. Cost: O(n + stale) pops, O(1) each.
local wanted = tonumber(ARGV[1])
local out = { now_ms() }
if not redis.call('ZSCORE', KEYS[8], ARGV[2]) then
  redis.call('ZADD', KEYS[8], out[1] + tonumber(ARGV[3]), ARGV[2])
end
local taken, popped = 0, 0
while taken < wanted and popped < wanted + 1000 do
  local id = redis.call('LPOP', KEYS[1])
  if not id then break end
  popped = popped + 1
  local rec = redis.call('HGET', KEYS[3], id)
  local r = rec and decode(rec)
  if r and r.running == '0' and not redis.call('ZSCORE', KEYS[4], id) and not redis.call('ZSCORE', KEYS[5], id) then
    r.running = '1'
    r.attempts = r.attempts + 1
    rec = encode(r)
    redis.call('HSET', KEYS[3], id, rec)
    redis.call('RPUSH', KEYS[2], id)
    out[#out + 1] = id
    out[#out + 1] = rec
    taken = taken + 1
  elseif rec and not r and not redis.call('ZSCORE', KEYS[5], id) then
    redis.call('ZADD', KEYS[5], out[1], id)
    redis.call('HSET', KEYS[6], id, 'record is not in the job format')
    redis.call('HINCRBY', KEYS[7], 'dead', 1)
  end
end
return out
