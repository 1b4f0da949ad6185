-- The claim-candidate query. The literal status list repeats the partial index's predicate so that
-- the planner can use the claim-queue index (V5) even for a generic (prepared) plan; the
-- parameterized list narrows it to the selection (PENDING and DEFERRED, RETRYABLE_FAILURE, or all).
-- The row's own conditions sit in one CASE, so that no estimate from the table's statistics (a fresh
-- table, or statistics taken before a burst or before most rows were finalized) makes the planner
-- prefer the primary key or a bitmap scan and a sort of every eligible row (see claim_in_database.sql).
-- Parameters: three statuses, now (due), now (claim expiry), limit.
SELECT * FROM ${table}
WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND CASE WHEN status IN (?, ?, ?)
             AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?::timestamptz, now()))
             AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?::timestamptz, now()))
           THEN TRUE ELSE FALSE END
ORDER BY id
LIMIT ?
