-- Entries a worker could still act on now: eligible and due, or under a live claim. ?1, ?2 = now.
SELECT count(*)
  FROM ${table}
 WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
   AND (next_attempt_at IS NULL OR next_attempt_at <= ? OR claim_expires_at > ?)
