-- Releases a batch of leases in one statement: each lease whose row still carries its owner and fence
-- and has not expired by the caller's "now" is expired at 1970-01-01 (the "released" mark), grantable
-- to anyone at once; the row and its fence stay. FINAL TABLE returns the leases released.
-- Parameters: keys array, owners array, fences array, now.
SELECT lease_key, owner, fence FROM FINAL TABLE (
    MERGE INTO ${table}_leases AS l
    USING (SELECT * FROM UNNEST(CAST(? AS VARCHAR(1000) ARRAY), CAST(? AS VARCHAR(1000) ARRAY),
                                CAST(? AS BIGINT ARRAY))
               AS u(lease_key, owner, fence)) AS w
    ON l.lease_key = w.lease_key AND l.owner = w.owner AND l.fence = w.fence AND l.expires_at > COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP)
    WHEN MATCHED THEN
        UPDATE SET expires_at = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00'
)
