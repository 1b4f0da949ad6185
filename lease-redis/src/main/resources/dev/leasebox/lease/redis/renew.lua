-- Extends a batch of leases, each only while it is still the same grant.
-- KEYS[i]        a lease key
-- ARGV[2i - 1]   the value that grant stored (<fence>:<owner>)
-- ARGV[2i]       its ttl in milliseconds, counted from now on Redis's clock
-- Returns 1 per lease renewed, 0 per lease expired or held by another grant (left untouched).
local renewed = {}
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[2 * i - 1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
