-- Start-up check of JdbcLeaseManager: fails when the V3 lease table (or its database) does not exist.
SELECT lease_key, owner, fence, expires_at FROM ${table}_leases WHERE 1 = 0
