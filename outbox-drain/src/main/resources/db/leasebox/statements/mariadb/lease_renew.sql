-- Renews one lease whose row still carries its owner and fence and has not expired by the caller's
-- "now": a new expiry, the given instant or (NULL) the database's now plus the ttl. Run per lease in
-- one transaction, keys in lease_key order (as grants and releases lock them). A renewal never shortens
-- a lease: of two in flight at once, the one computed earlier may land last (GREATEST keeps the later).
-- Parameters: expires_at, ttl ms, key, owner, fence, now.
UPDATE ${table}_leases
SET expires_at = GREATEST(expires_at, COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))
WHERE lease_key = ? AND owner = ? AND fence = ?
  AND expires_at > COALESCE(?, UTC_TIMESTAMP(6))
