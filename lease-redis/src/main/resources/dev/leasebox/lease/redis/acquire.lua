-- Grants a batch of leases in one atomic step.
-- KEYS[1]     the namespace's fence counter (<namespace>:fence)
-- KEYS[2..n]  the lease keys (<namespace>:lease:<key>)
-- ARGV[1]     the owner
-- ARGV[2]     the ttl in milliseconds
-- ARGV[3]     the most keys to grant; the keys are tried in order and the rest are left alone
-- Returns one integer per lease key, in order: the fence granted, or 0 when the key is held (or
-- was not tried because the limit was reached).
-- The grants of one call take the fences after the counter's value, in order, and the counter is
-- moved past them once at the end: one SET NX per key tried and a GET and a SET of the counter per
-- call, not an EXISTS, an INCR and a SET per key (nor any command an ACL user lacks: GET and SET).
-- Only keys that were free take a fence, so fences are not burnt on lost races, and no per-key
-- counter is ever created; the script is atomic, so no other call takes a fence or a key meanwhile.
local owner = ARGV[1]
local ttl = ARGV[2]
local limit = tonumber(ARGV[3])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if last > 9007199254740991 - (#KEYS - 1) then
  -- Lua counts in doubles: past 2^53 two grants could get the same fence (and so could this sum, were
  -- it written the other way round)
  return redis.error_reply('the fence counter ' .. KEYS[1] .. ' is at ' .. string.format('%d', last)
    .. ', too close to 2^53 for Lua to count on exactly; the outbox table holds fences this large only if another backend wrote them: drain this table with that backend')
end
local granted = 0
local fences = {}
for i = 2, #KEYS do
  fences[i - 1] = 0
  if granted < limit then
    local fence = last + granted + 1
    if redis.call('SET', KEYS[i], string.format('%d', fence) .. ':' .. owner, 'NX', 'PX', ttl) then
      fences[i - 1] = fence
      granted = granted + 1
    end
  end
end
if granted > 0 then
  redis.call('SET', KEYS[1], string.format('%d', last + granted))
end
return fences
