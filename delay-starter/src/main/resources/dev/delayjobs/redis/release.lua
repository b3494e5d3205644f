--! include: _clock, _full, _hand_back, _fences
-- release: at graceful shutdown, hands every job one consumer instance holds back to the front of
-- ready at once, whatever its lease, unchanged (none buried, none marked suspect), raises the
-- instance's claim fence and forgets the instance. The fence is kept for ARGV[3] ms (see
-- _fences.lua): the instance's claimer may have a claim on its way, which must stay refused. Every
-- call deletes up to 100 fences whose time ran out.
-- KEYS[1] instances: zset, instance -> lease deadline
-- KEYS[2] workers: hash, instance -> concurrency
-- KEYS[3] ready: list
-- KEYS[4] fences: hash, instance -> oldest claim epoch accepted (see claim.lua)
-- KEYS[5] forgotten-fences: zset, instance -> when its fence may go
-- KEYS[6] claims: hash, id -> claim entry
-- KEYS[7] active: the instance's active list (active:<instance>)
-- KEYS[8] groups-ready: zset, the rotation of groups with ready jobs (see _groups.lua)
-- KEYS[9] group-held: hash, group -> held jobs: lowered for each grouped job handed back
-- KEYS[10] groups: hash, id -> group (grouped jobs only): a job claimed without a group limit goes to its group's list
-- ARGV[1] instance: the instance id
-- ARGV[2] fence: claims of a lower epoch are refused from now on; the fence only ever rises (a
--   lower one leaves it as it is, and the reply says where it is)
-- ARGV[3] fence-kept-ms: how long the forgotten instance's fence is kept
-- Runs when Redis is full (run_even_when_full in _full.lua), as the claims that drain it do.
-- Returns {jobs sent back to ready, the instance's fence}.
-- Cost: O(H) for the H ids the instance holds, plus O(log F) per fence deleted (at most 100);
-- independent of the backlog and of payload sizes.
run_even_when_full(KEYS[6])
local now = now_ms()
local back = hand_back(KEYS[6], KEYS[3], { rotation = KEYS[8], held = KEYS[9], groups = KEYS[10] }, KEYS[7], redis.call('LRANGE', KEYS[7], 0, -1), true, {}, false)
local fence = raise_fence(KEYS[4], ARGV[1], ARGV[2])
forget_instance(KEYS[1], KEYS[2], KEYS[4], KEYS[5], ARGV[1], now + tonumber(ARGV[3]))
drop_old_fences(KEYS[4], KEYS[5], now)
return { back, fence }
