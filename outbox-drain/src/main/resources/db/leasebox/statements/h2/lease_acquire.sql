-- Grants every free key of a batch, in one statement: a key without a row (never leased) is
-- inserted, a key whose lease expired by the caller's "now" (a released lease expired at 1970-01-01)
-- is re-granted; each granted key takes a new fence from the sequence (H2 takes NEXT VALUE FOR only
-- for rows the MERGE writes, a distinct value per row). FINAL TABLE returns exactly the keys granted.
-- Fences strictly grow per key: rows are never deleted (release only expires them) and a re-grant
-- writes GREATEST(new value, row's fence + 1), as on PostgreSQL. JdbcLeaseManager runs the lease
-- statements of one H2 database and table one at a time within the JVM (see LeaseTable).
-- Time: "now" is NULL when the database's clock judges (the default: the statement uses
-- CURRENT_TIMESTAMP), or an instant when the manager was given an explicit clock (tests).
-- Parameters: owner, expires_at (NULL: now + ttl), ttl ms, keys array, now.
SELECT lease_key, fence FROM FINAL TABLE (
    MERGE INTO ${table}_leases AS l
    USING (SELECT u.lease_key,
                  CAST(? AS VARCHAR(1000))           AS owner,
                  COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE),
                           DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)) AS expires_at
           FROM UNNEST(CAST(? AS VARCHAR(1000) ARRAY)) AS u(lease_key)) AS r
    ON l.lease_key = r.lease_key
    WHEN MATCHED AND l.expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP) THEN
        UPDATE SET owner      = r.owner,
                   fence      = GREATEST(NEXT VALUE FOR ${table}_lease_fence_seq, l.fence + 1),
                   expires_at = r.expires_at
    WHEN NOT MATCHED THEN
        INSERT (lease_key, owner, fence, expires_at)
        VALUES (r.lease_key, r.owner, NEXT VALUE FOR ${table}_lease_fence_seq, r.expires_at)
)
