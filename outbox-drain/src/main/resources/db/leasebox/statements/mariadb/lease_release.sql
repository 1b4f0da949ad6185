-- Releases one lease whose row still carries its owner and fence and has not expired by the caller's
-- "now": it expires at 1970-01-01 (the "released" mark), grantable to anyone at once; the row and its
-- fence stay. Run per lease in one transaction, keys in lease_key order.
-- Parameters: key, owner, fence, now.
UPDATE ${table}_leases
SET expires_at = '1970-01-01 00:00:00'
WHERE lease_key = ? AND owner = ? AND fence = ?
  AND expires_at > COALESCE(?, UTC_TIMESTAMP(6))
