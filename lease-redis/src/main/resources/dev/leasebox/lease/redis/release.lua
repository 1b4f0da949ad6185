-- Releases a batch of leases, each only while it is still the same grant.
-- KEYS[i]   a lease key
-- ARGV[i]   the value that grant stored (<fence>:<owner>)
-- Returns 1 per lease deleted, 0 per lease expired or held by another grant (left untouched).
local released = {}
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[i] then
    redis.call('DEL', KEYS[i])
    released[i] = 1
  else
    released[i] = 0
  end
end
return released
