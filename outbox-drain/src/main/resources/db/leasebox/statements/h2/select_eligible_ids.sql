-- The claim-candidate query of the leased claim path, ids only (see the PostgreSQL statement).
-- "lapsed": the row still carries an expired claim (its holder died or lost it), which the
-- candidate sample prefers (CandidateSample).
-- Parameters: three statuses, now (due), now (claim expiry), from (QueueHead), limit.
SELECT id, CASE WHEN claim_expires_at IS NULL THEN FALSE ELSE TRUE END AS lapsed FROM ${table}
WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
  AND id >= ?
ORDER BY id
LIMIT ?
