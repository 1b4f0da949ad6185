-- The lean claim path's read after the grant: those of the given rows that are still eligible now.
-- Parameters: an array of ids, three statuses, now (due), now (claim expiry).
SELECT * FROM ${table}
WHERE id = ANY (?)
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
ORDER BY id
