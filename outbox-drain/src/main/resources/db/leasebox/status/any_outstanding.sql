-- Whether any entry is still to act on now (eligible and due, or under a live claim): 1 or 0. ?1, ?2 = now.
-- Stops at the first such row, so it costs the same on a backlog of ten rows or ten million.
SELECT CASE WHEN EXISTS (
         SELECT 1
           FROM ${table}
          WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
            AND (next_attempt_at IS NULL OR next_attempt_at <= ? OR claim_expires_at > ?)
       ) THEN 1 ELSE 0 END
