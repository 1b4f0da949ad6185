-- Grants one key whose lease expired by the caller's "now" (a released lease expired at 1970-01-01)
-- to a new owner, with a new fence from the sequence, raised above the row's fence so that fences
-- strictly grow per key whatever the sequence did. Matches nothing while the key is held (by anyone,
-- this owner included) or has no row yet. Runs in the grant's transaction (keys in lease_key order);
-- the row then stays locked until lease_fence.sql has read the fence and the transaction commits.
-- Time: "now" is NULL when the database's clock judges (UTC_TIMESTAMP(6)), or an instant (UTC).
-- Parameters: owner, expires_at (NULL: now + ttl), ttl ms, key, now.
UPDATE ${table}_leases
SET owner      = ?,
    fence      = GREATEST(NEXTVAL(${table}_lease_fence_seq), fence + 1),
    expires_at = COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
WHERE lease_key = ?
  AND expires_at <= COALESCE(?, UTC_TIMESTAMP(6))
