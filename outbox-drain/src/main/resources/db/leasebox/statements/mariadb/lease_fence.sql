-- The fence of a key just granted in this transaction (its row is locked by the grant).
-- Parameters: key.
SELECT fence FROM ${table}_leases WHERE lease_key = ?
