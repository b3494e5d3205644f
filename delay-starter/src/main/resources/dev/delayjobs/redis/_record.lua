--! include: _base36
-- The job record format.
-- A record (jobs hash, id -> record) is one string: gen,due,age|payload   (numbers in base 36, lower case)
--   gen        publish sequence number of the queue: tells a replacement from the job a consumer claimed
--              (an opaque token: only compared for equality)
--   due        due time, epoch ms: the Redis server's clock plus the delay, or the instant given to
--              publishAt (read with the publisher's clock)
--   age        due - publishedAt in milliseconds (may be negative); publishedAt is on the Redis clock
--   payload    the job's JSON, untouched (never decoded here, so numbers keep their precision)
-- Base 36 keeps the header to about 18 characters (a 100-byte payload then fits a 128-byte allocation).

local function decode(rec)
  local gen, due, age, payload = string.match(rec, '^([0-9a-z]+),(%-?[0-9a-z]+),(%-?[0-9a-z]+)|(.*)$')
  if gen and fits(gen, due, age) then
    local r = { gen = gen }
    r.due = from36(due)
    r.published = r.due - from36(age)
    r.payload = payload
    return r
  end
  return nil
end

-- gen is a number for a new record (HINCRBY), or the token read from an existing one
local function encode(r)
  local gen = r.gen
  if type(gen) == 'number' then gen = to36(gen) end
  local due = tonumber(r.due)
  return gen .. ',' .. to36(due) .. ',' .. to36(due - tonumber(r.published)) .. '|' .. r.payload
end

-- The record of a new job (gen from HINCRBY), written straight: publish's per-job work, where
-- building a table for encode() costs more than the rest of the record.
local function new_record(gen, due, published, payload)
  return to36(gen) .. ',' .. to36(due) .. ',' .. to36(due - published) .. '|' .. payload
end

-- The gen and due (base 36) of a record, matched at its start so that the payload is never copied
-- (claim's and queue-stats' read); nil when rec is not in the job format.
local function record_header(rec)
  local gen, due, age = string.match(rec, '^([0-9a-z]+),(%-?[0-9a-z]+),(%-?[0-9a-z]+)|')
  if gen and fits(gen, due, age) then return gen, due end
  return nil
end

-- The due time (a number) of a record, nil when rec is nil or not in the job format: finds the page
-- a delayed job of the default group waits in (_delayed.lua).
local function record_due(rec)
  if not rec then return nil end
  local _, due = record_header(rec)
  return due and from36(due)
end
