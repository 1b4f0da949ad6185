-- The claim-candidate query. The literal status list repeats the partial index's predicate so that
-- the planner can use its candidate index; the
-- parameterized list narrows it to the selection (PENDING and DEFERRED, RETRYABLE_FAILURE, or all).
-- Parameters: three statuses, now (due), now (claim expiry), limit.
SELECT * FROM ${table}
WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
ORDER BY id
LIMIT ?
