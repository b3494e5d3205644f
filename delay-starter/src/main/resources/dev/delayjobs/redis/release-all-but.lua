--! include: _clock, _full, _hand_back, _fences
-- release-all-but: hands back to the front of ready, unchanged (none buried, none marked suspect),
-- the jobs a live consumer instance holds but no longer handles, after a claim or an ack whose
-- reply was lost, or when a starting container takes over what its instance id held before; the
-- ids in ARGV[3..] are still being handled and stay. Raises the instance's claim fence, kept for
-- good again (a fence kept for a forgotten instance of this id is no longer dropped later). Every
-- call deletes up to 100 fences whose time ran out (see _fences.lua).
-- KEYS[1] ready: list
-- KEYS[2] fences: hash, instance -> oldest claim epoch accepted (see claim.lua)
-- KEYS[3] forgotten-fences: zset, instance -> when its fence may go
-- KEYS[4] claims: hash, id -> claim entry
-- KEYS[5] active: the instance's active list (active:<instance>)
-- KEYS[6] groups-ready: zset, the rotation of groups with ready jobs (see _groups.lua)
-- KEYS[7] group-held: hash, group -> held jobs: lowered for each grouped job handed back
-- KEYS[8] groups: hash, id -> group (grouped jobs only): a job claimed without a group limit goes to its group's list
-- ARGV[1] instance: the instance id
-- ARGV[2] fence: claims of a lower epoch are refused from now on; the fence only ever rises (a
--   lower one leaves it as it is, and the reply says where it is)
-- ARGV[3..] keep: ids to keep
-- Runs when Redis is full (run_even_when_full in _full.lua), as the claims that drain it do.
-- Returns {jobs sent back to ready, the instance's fence}.
-- Cost: O(H) for the H ids the instance holds, plus O(log F) per fence deleted (at most 100);
-- independent of the backlog and of payload sizes.
run_even_when_full(KEYS[4])
local now = now_ms()
local keep = {}
for i = 3, #ARGV do keep[ARGV[i]] = true end
local back = hand_back(KEYS[4], KEYS[1], { rotation = KEYS[6], held = KEYS[7], groups = KEYS[8] }, KEYS[5], redis.call('LRANGE', KEYS[5], 0, -1), true, keep, false)
local fence = raise_fence(KEYS[2], ARGV[1], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
drop_old_fences(KEYS[2], KEYS[3], now)
return { back, fence }
