-- Which of a batch's keys are held now (unexpired by the caller's "now"): read only, as on PostgreSQL.
-- Parameters: keys array, now.
SELECT l.lease_key
FROM ${table}_leases AS l
JOIN UNNEST(CAST(? AS VARCHAR(1000) ARRAY)) AS u(lease_key) ON l.lease_key = u.lease_key
WHERE l.expires_at > COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP)
