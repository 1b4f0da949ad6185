-- Lean partition claims, the read: eligible rows of the caller's slots, oldest first, excluding rows
-- under an unexpired recorded claim and the caller's own rows in flight. Nothing is written: the
-- slot lease is the claim, and the gate is at completion (slot_complete.sql). The key_order
-- placeholder below is empty, or (ordered mode) the filter of slot_key_order.sql.
-- Parameters: slots integer[], three statuses, now (due), now (expiry), in-flight ids bigint[], limit.
SELECT o.* FROM ${table} AS o
WHERE o.lease_slot = ANY (?::integer[])
  AND o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND o.status IN (?, ?, ?)
  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?::timestamptz, now()))
  AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?::timestamptz, now()))
  AND o.id <> ALL (?::bigint[])
  ${key_order}
ORDER BY o.id
LIMIT ?
