-- Grants a key that was never leased: inserts its row with a fence from the sequence. A key that has
-- a row (held, or granted concurrently) is left as it is: INSERT IGNORE reports no row then. IGNORE
-- would also cut a key longer than lease_key short: MariaDbLeaseTable refuses such keys before.
-- Parameters: key, owner, expires_at (NULL: now + ttl), ttl ms.
INSERT IGNORE INTO ${table}_leases (lease_key, owner, fence, expires_at)
VALUES (?, ?, NEXTVAL(${table}_lease_fence_seq), COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))
