-- The lean claim path's read after the grant: those of the given rows that are still eligible now
-- (a previous holder may have completed one, and released its lease, between the candidate read and
-- the grant). Reads only. Plan: rows are found by primary key only (the row conditions in a CASE),
-- whatever the statistics say (see record_claims.sql).
-- Parameters: ids bigint[], three statuses, now (due), now (claim expiry).
SELECT * FROM ${table} AS t
WHERE t.id = ANY (?::bigint[])
  AND CASE WHEN t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
             AND t.status IN (?, ?, ?)
             AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= COALESCE(?::timestamptz, now()))
             AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= COALESCE(?::timestamptz, now()))
           THEN TRUE ELSE FALSE END
ORDER BY t.id
