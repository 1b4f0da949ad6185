-- Makes every later fence of the namespace strictly greater than a floor.
-- KEYS[1]   the namespace's fence counter (<namespace>:fence)
-- ARGV[1]   the floor (a decimal integer)
-- Returns 1 when the counter was raised to the floor, 0 when it already was at or above it.
-- The next INCR then yields floor + 1. Used after Redis lost data and the counter went backwards.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
return 0
