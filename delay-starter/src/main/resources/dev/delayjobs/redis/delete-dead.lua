-- delete-dead: deletes dead jobs for good.
-- KEYS[1] dead: zset
-- KEYS[2] jobs: hash
-- KEYS[3] errors: hash
-- KEYS[4] claims: hash, id -> claim entry (see _claims.lua): deleted with the jobs
-- KEYS[5] groups: hash, id -> group (grouped jobs only): deleted with the jobs
-- ARGV[1] max: at most this many
-- ARGV[2..] id: the ids; with no id, the oldest dead jobs
-- Returns how many were deleted. Cost: O(M log N) for M jobs.
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1) end
local done = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', KEYS[1], id) == 1 then
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    redis.call('HDEL', KEYS[5], id)
    done = done + 1
  end
end
return done
