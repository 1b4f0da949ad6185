-- Grants a batch of leases in one atomic step.
-- KEYS[1]     the namespace's fence counter (<namespace>:fence)
-- KEYS[2..n]  the lease keys (<namespace>:lease:<key>)
-- ARGV[1]     the owner
-- ARGV[2]     the ttl in milliseconds
-- ARGV[3]     the most keys to grant; the keys are tried in order and the rest are left alone
-- Returns one integer per lease key, in order: the fence granted, or 0 when the key is held (or
-- was not tried because the limit was reached).
-- The counter is incremented only for keys that are free, so fences are not burnt on lost races
-- and no per-key counter is ever created; the script is atomic, so EXISTS-then-SET cannot race.
local owner = ARGV[1]
local ttl = ARGV[2]
local limit = tonumber(ARGV[3])
local granted = 0
local fences = {}
for i = 2, #KEYS do
  if granted >= limit then
    fences[i - 1] = 0
  elseif redis.call('EXISTS', KEYS[i]) == 0 then
    local fence = redis.call('INCR', KEYS[1])
    local value = string.format('%d', fence) .. ':' .. owner
    if redis.call('SET', KEYS[i], value, 'NX', 'PX', ttl) then
      fences[i - 1] = fence
      granted = granted + 1
    else
      fences[i - 1] = 0
    end
  else
    fences[i - 1] = 0
  end
end
return fences
