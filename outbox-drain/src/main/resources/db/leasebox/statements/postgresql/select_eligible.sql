-- The claim-candidate query. The literal status list repeats the partial index's predicate so that
-- the planner can use ${table_name}_claim_candidates even for a generic (prepared) plan; the
-- parameterized list narrows it to the selection (PENDING and DEFERRED, RETRYABLE_FAILURE, or all).
-- Parameters: three statuses, now (due), now (claim expiry), limit.
SELECT * FROM ${table}
WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?::timestamptz, now()))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?::timestamptz, now()))
ORDER BY id
LIMIT ?
