-- Numbers of records and claim entries in base 36, lower case (see _record.lua and _claims.lua).

-- The digits of n >= 0 in base 36 as character codes, most significant first: built on the stack
-- through tail calls and turned into one string by a single string.char, about 3x faster than
-- collecting digit strings in a table (publish writes three numbers per job).
local function digits36(n, ...)
  local d = n % 36
  local code = d + 48
  if d > 9 then code = code + 39 end
  if n < 36 then return code, ... end
  return digits36((n - d) / 36, code, ...)
end

-- The four lowest base-36 digits of n >= 0 as character codes, most significant first, zeros kept.
local function digits4(n)
  local d4 = n % 36
  n = (n - d4) / 36
  local d3 = n % 36
  n = (n - d3) / 36
  local d2 = n % 36
  local d1 = ((n - d2) / 36) % 36
  return d1 < 10 and d1 + 48 or d1 + 87, d2 < 10 and d2 + 48 or d2 + 87,
    d3 < 10 and d3 + 48 or d3 + 87, d4 < 10 and d4 + 48 or d4 + 87
end

local LOW4 = 1679616 -- 36^4

local function to36(n)
  n = tonumber(n)
  if n < 0 then return '-' .. string.char(digits36(-n)) end
  return string.char(digits36(n))
end

-- A formatter for the numbers of one call, which share their leading digits (a publish's gens,
-- its due times): the digits above the lowest `width` (1 or 4) are formatted once per distinct
-- value, the lowest with one string.char, about 30% less than to36 (publish formats two numbers a
-- job). Width 1 suits numbers that count up (gens), 4 due times (they change every 28 minutes).
local function base36_run(width)
  local unit = width == 1 and 36 or LOW4
  local high36 = {}
  return function(n)
    if n < unit then return to36(n) end -- also every negative number
    local low = n % unit
    local h = (n - low) / unit
    local prefix = high36[h]
    if not prefix then
      prefix = to36(h)
      high36[h] = prefix
    end
    if width == 1 then return prefix .. string.char(low < 10 and low + 48 or low + 87) end
    return prefix .. string.char(digits4(low))
  end
end

local function from36(s)
  if string.sub(s, 1, 1) == '-' then return -tonumber(string.sub(s, 2), 36) end
  return tonumber(s, 36)
end

-- Each number has at most 12 base-36 digits (36^12 < 2^63), as StoredJob.parse requires: a record
-- Java could not read never reaches a consumer; claim buries it as not in the job format.
local function fits_one(field)
  local n = #field
  return n <= 12 or (n == 13 and string.byte(field, 1) == 45) -- 45: '-'
end

-- (gen has no sign: 12 digits at most; the length checks spare the common case two calls)
local function fits(gen, due, age)
  return #gen <= 12 and (#due <= 12 or fits_one(due)) and (#age <= 12 or fits_one(age))
end
