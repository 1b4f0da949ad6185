-- Renews a batch of leases in one statement: each lease whose row still carries its owner and fence
-- and has not expired by the caller's "now" gets its own new expiry; FINAL TABLE returns those.
-- Leases expired, released or re-granted match nothing and are absent. A renewal never shortens a
-- lease: of two in flight at once, the one computed earlier may land last (GREATEST keeps the later expiry).
-- Time: "now" is NULL when the database's clock judges (the default: the statement uses
-- CURRENT_TIMESTAMP), or an instant when the manager was given an explicit clock (tests).
-- Parameters: keys array, owners array, fences array, new expiries array (ISO-8601 text; NULL: now +
-- ttl), ttls in ms array, now.
SELECT lease_key, owner, fence FROM FINAL TABLE (
    MERGE INTO ${table}_leases AS l
    USING (SELECT * FROM UNNEST(CAST(? AS VARCHAR(1000) ARRAY), CAST(? AS VARCHAR(1000) ARRAY),
                                CAST(? AS BIGINT ARRAY), CAST(? AS VARCHAR(64) ARRAY), CAST(? AS BIGINT ARRAY))
               AS u(lease_key, owner, fence, expires_at, ttl_ms)) AS w
    ON l.lease_key = w.lease_key AND l.owner = w.owner AND l.fence = w.fence AND l.expires_at > COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP)
    WHEN MATCHED THEN
        UPDATE SET expires_at = GREATEST(l.expires_at, COALESCE(CAST(w.expires_at AS TIMESTAMP WITH TIME ZONE),
                                         DATEADD(MILLISECOND, w.ttl_ms, CURRENT_TIMESTAMP)))
)
