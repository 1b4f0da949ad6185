-- Selection on a table without claim columns (useClaimLeases = false, V1 only).
-- Parameters: three statuses, now (due), limit.
SELECT * FROM ${table}
WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
ORDER BY id
LIMIT ?
