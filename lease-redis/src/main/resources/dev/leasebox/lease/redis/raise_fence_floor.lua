-- Makes every later fence of the namespace strictly greater than a floor.
-- KEYS[1]   the namespace's fence counter (<namespace>:fence)
-- ARGV[1]   the floor (a decimal integer)
-- Returns 0 when the counter already was at or above the floor; else raises it to the floor and
-- returns 2 when the counter did not exist (the namespace's first use on this Redis), 1 when it existed
-- below the floor (the counter went backwards: Redis lost data, or the table's fences came from elsewhere).
-- The next grant's fence is then floor + 1.
local stored = redis.call('GET', KEYS[1])
local current = tonumber(stored or '0')
if current < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  if stored then
    return 1
  end
  return 2
end
return 0
