-- Start-up check of JdbcLeaseManager: fails when the V3 fence sequence is missing (reads it without
-- advancing it).
SELECT next_not_cached_value FROM ${table}_lease_fence_seq
