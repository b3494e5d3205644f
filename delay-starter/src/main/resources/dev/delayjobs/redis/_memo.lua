-- Redisson resends a script after a response timeout (its retryAttempts), and after a stall every
-- copy runs. A state change whose repetition would do harm (publish, claim, cancel) is named by a
-- request: its first run leaves a memo of its reply, and a copy returns that instead of running
-- again. The memo lives at least MEMO_MS, defined on the line LuaScript puts first in every script
-- that includes this file: the longest time Redisson may resend a copy under the client's timeout
-- and retry settings, plus a margin for a stalled Redis (RequestMemo.java).
-- Memos are fields of bucket hashes, not keys of their own (a key with a TTL costs ~150 bytes, a
-- field of a small hash ~20): the client names the request's bucket, one per send-time second and
-- sub-bucket (RequestMemo.Request), in the script's memo KEY, and its field, drawn at random,
-- in the last ARGV. Every copy carries both, so it looks in the one bucket its first run wrote.
-- A bucket's TTL is raised to MEMO_MS + 1 s whenever a write finds it under MEMO_MS, never lowered:
-- each memo lives MEMO_MS after its write or longer, the bucket goes once its last memo may.
-- The value is the reply in MessagePack ({1} is 2 bytes; cjson's '[1]' 3), which keeps a bucket's
-- values under hash-max-listpack-value (64 bytes) and the hash compact. A publish whose jobs were
-- all created stores '' instead (ALL_CREATED; 2 bytes in a listpack, {1} takes 4, and a batch's
-- statuses would turn its bucket into a hash table): a copy carries its job count. No MessagePack
-- value is empty, so '' means nothing else.
-- Cost: O(1); a bucket in listpack form is scanned, at most hash-max-listpack-entries (512) fields.
local MEMO_FIELD = ARGV[#ARGV]
local ALL_CREATED = {}

local function replayed(bucket)
  local memo = redis.call('HGET', bucket, MEMO_FIELD)
  if memo == '' then return ALL_CREATED end
  if memo then return cmsgpack.unpack(memo) end
  return nil
end

-- stored: what the bucket keeps, when not the reply in MessagePack ('' for ALL_CREATED)
local function remember(bucket, reply, stored)
  redis.call('HSET', bucket, MEMO_FIELD, stored or cmsgpack.pack(reply))
  -- a second beyond MEMO_MS spares the next second's writes a PEXPIRE
  if redis.call('PTTL', bucket) < MEMO_MS then redis.call('PEXPIRE', bucket, MEMO_MS + 1000) end
  return reply
end
