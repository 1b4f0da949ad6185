-- Lean partition claims, the read: eligible rows of the caller's slots, oldest first, excluding rows
-- under an unexpired recorded claim and the caller's own rows in flight. Nothing is written: the
-- slot lease is the claim, and the gate is at completion (slot_complete.sql). The key_order
-- placeholder below is empty, or (ordered mode) the filter of slot_key_order.sql; not_in_flight is
-- empty, or "AND o.id NOT IN (?, …)" with one "?" per id in flight.
-- Parameters: the slots (${slots}), three statuses, now (due), now (expiry), the ids in flight, limit.
SELECT o.* FROM ${table} AS o
WHERE o.lease_slot IN (${slots})
  AND o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND o.status IN (?, ?, ?)
  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  ${not_in_flight}
  ${key_order}
ORDER BY o.id
LIMIT ?
