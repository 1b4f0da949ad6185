-- Releases a batch of leases in one statement: each lease whose row still carries its owner and fence
-- and has not expired by the caller's "now" is expired at 1970-01-01 (the "released" mark), which
-- makes the key grantable to anyone at once, whatever their clock. The row and its fence stay, so the
-- key's next fence is still compared with this one. Leases not held are untouched and absent.
-- Rows are locked in lease_key order, as acquire and renew lock them.
-- Parameters: keys text[], owners text[], fences bigint[], now.
WITH held AS (
    SELECT l.lease_key, l.owner, l.fence
    FROM unnest(?::text[], ?::text[], ?::bigint[]) AS w(lease_key, owner, fence)
    JOIN ${table}_leases AS l
      ON l.lease_key = w.lease_key AND l.owner = w.owner AND l.fence = w.fence
    WHERE l.expires_at > COALESCE(?::timestamptz, now())
    ORDER BY l.lease_key
    FOR UPDATE OF l
)
UPDATE ${table}_leases AS l
SET expires_at = TIMESTAMPTZ '1970-01-01 00:00:00+00'
FROM held
WHERE l.lease_key = held.lease_key
  AND l.owner = held.owner
  AND l.fence = held.fence
RETURNING l.lease_key, l.owner, l.fence
