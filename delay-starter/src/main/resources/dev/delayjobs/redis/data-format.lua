-- data-format: the version of the data format this prefix's keys are written in, checked by every
-- application at startup. The first application to start under a prefix records its version.
-- KEYS[1] data-format: the prefix's data format (string)
-- ARGV[1] version: the version of the caller
-- Returns the version recorded (the caller's when none was). Cost: O(1).
local recorded = redis.call('GET', KEYS[1])
if recorded then return tonumber(recorded) end
redis.call('SET', KEYS[1], ARGV[1])
return tonumber(ARGV[1])
