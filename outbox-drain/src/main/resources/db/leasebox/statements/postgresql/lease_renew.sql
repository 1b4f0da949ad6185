-- Renews a batch of leases in one statement: each lease whose row still carries its owner and fence
-- and has not expired by the caller's "now" gets its own new expiry. Leases expired, released or
-- re-granted are left untouched and absent from RETURNING.
-- The CTE locks the matching rows in lease_key order (ORDER BY ... FOR UPDATE locks after sorting),
-- the same order acquire and release use, so concurrent calls never deadlock; under READ COMMITTED
-- the lock re-checks the conditions on the row's newest version.
-- Parameters: keys text[], owners text[], fences bigint[], new expiries text[] (ISO-8601), now.
WITH held AS (
    SELECT l.lease_key, l.owner, l.fence, w.expires_at::timestamptz AS new_expires_at
    FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[])
             AS w(lease_key, owner, fence, expires_at)
    JOIN ${table}_leases AS l
      ON l.lease_key = w.lease_key AND l.owner = w.owner AND l.fence = w.fence
    WHERE l.expires_at > ?::timestamptz
    ORDER BY l.lease_key
    FOR UPDATE OF l
)
UPDATE ${table}_leases AS l
SET expires_at = held.new_expires_at
FROM held
WHERE l.lease_key = held.lease_key
  AND l.owner = held.owner
  AND l.fence = held.fence
RETURNING l.lease_key, l.owner, l.fence
