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

local function to36(n)
  n = tonumber(n)
  if n < 0 then return '-' .. string.char(digits36(-n)) end
  return string.char(digits36(n))
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

local function fits(gen, due, age)
  return fits_one(gen) and fits_one(due) and fits_one(age)
end
