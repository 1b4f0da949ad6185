-- Start-up check of JdbcLeaseManager: fails when the V3 fence sequence is missing (reads it without
-- advancing it).
SELECT last_value FROM ${table}_lease_fence_seq
