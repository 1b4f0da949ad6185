-- Renews a batch of leases in one statement: each lease whose row still carries its owner and fence
-- and has not expired by the caller's "now" gets its own new expiry. Leases expired, released or
-- re-granted are left untouched and absent from RETURNING. A renewal never shortens a lease: of two in
-- flight at once, the one computed earlier may land last (GREATEST keeps the later expiry).
-- The CTE locks the matching rows in lease_key order (ORDER BY ... FOR UPDATE locks after sorting),
-- the same order acquire and release use, so concurrent calls never deadlock; under READ COMMITTED
-- the lock re-checks the conditions on the row's newest version.
-- Time: "now" is NULL when the database's clock judges (the default: the statement uses now()), or an
-- instant when the manager was given an explicit clock (tests).
-- Parameters: keys text[], owners text[], fences bigint[], new expiries text[] (ISO-8601; NULL: now() +
-- ttl), ttls in ms bigint[], now.
WITH held AS (
    SELECT l.lease_key, l.owner, l.fence,
           COALESCE(w.expires_at::timestamptz, now() + w.ttl_ms * interval '1 millisecond') AS new_expires_at
    FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[])
             AS w(lease_key, owner, fence, expires_at, ttl_ms)
    JOIN ${table}_leases AS l
      ON l.lease_key = w.lease_key AND l.owner = w.owner AND l.fence = w.fence
    WHERE l.expires_at > COALESCE(?::timestamptz, now())
    ORDER BY l.lease_key
    FOR UPDATE OF l
)
UPDATE ${table}_leases AS l
SET expires_at = GREATEST(l.expires_at, held.new_expires_at)
FROM held
WHERE l.lease_key = held.lease_key
  AND l.owner = held.owner
  AND l.fence = held.fence
RETURNING l.lease_key, l.owner, l.fence
