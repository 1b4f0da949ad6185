-- Start-up check of JdbcLeaseManager: fails when the V3 fence sequence is missing. H2 resolves the
-- sequence when it compiles the statement; WHERE 1 = 0 means its value is never read.
SELECT lease_key FROM ${table}_leases WHERE 1 = 0 AND CURRENT VALUE FOR ${table}_lease_fence_seq > 0
