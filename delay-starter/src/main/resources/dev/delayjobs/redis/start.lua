--! include: _chunks, _claims, _full
-- start: the start marks of PREFETCHED jobs a worker of the consumer took from its buffer: each
-- becomes RUNNING and counts its attempt. Sent without waiting for the reply (the handler is already
-- running), so a mark may arrive after the job's outcome, or not at all: a mark that finds the job
-- no longer PREFETCHED under this claim (acked, retried, buried, recovered, replaced) does nothing,
-- and the outcome scripts read a PREFETCHED job as started (let_go_of_claim in _ownership.lua).
-- Touches only claim entries, never a record.
-- KEYS[1] claims: hash, id -> claim entry (see _claims.lua)
-- ARGV[1..] id, gen, attempt: the claims the worker started (attempt = the attempts stored + 1)
-- Runs when Redis is full (run_even_when_full in _full.lua).
-- Returns how many jobs were marked. Cost: O(1) per job.
local ids = {}
for i = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
run_even_when_full(KEYS[1])
local entries = redis.call('HMGET', KEYS[1], unpack(ids))
local fields = {}
for k, id in ipairs(ids) do
  local c = claim_of(entries[k])
  if c and c.gen == ARGV[3 * k - 1] and as_started(c) and c.attempts == tonumber(ARGV[3 * k]) then
    fields[#fields + 1] = id
    fields[#fields + 1] = claim_entry(c)
  end
end
if #fields > 0 then call_in_chunks('HSET', KEYS[1], fields) end
return #fields / 2
