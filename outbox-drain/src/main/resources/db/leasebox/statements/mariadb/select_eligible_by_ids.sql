-- The lean claim path's read after the grant: those of the given rows that are still eligible now.
-- Reads only; the ids go through the primary key. ${ids} is one "?" per id, bound first.
-- Parameters: the ids, three statuses, now (due), now (claim expiry).
SELECT * FROM ${table}
WHERE id IN (${ids})
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
ORDER BY id
