-- Recorded partition claims, step 3 of one READ COMMITTED transaction (after slot_hold.sql and a
-- candidate read with slot_select.sql): locks those candidates that are still eligible rows of the held
-- slots, oldest first, skipping rows other transactions hold (FOR UPDATE SKIP LOCKED), so concurrent
-- claims take different rows instead of waiting. The ids go through the primary key, so only candidate
-- rows are locked. The key_order placeholder below is empty, or (ordered mode) the filter of
-- slot_key_order.sql.
-- Time: every "now" parameter is NULL when the database's clock judges (UTC_TIMESTAMP(6)), or an
-- instant (UTC) when the store was given an explicit clock (tests).
-- Parameters: the candidate ids (${ids}), the held slots (${slots}), three statuses, now (due), now
-- (expiry), limit.
SELECT o.id FROM ${table} AS o
WHERE o.id IN (${ids})
  AND o.lease_slot IN (${slots})
  AND o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND o.status IN (?, ?, ?)
  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  ${key_order}
ORDER BY o.id
LIMIT ?
FOR UPDATE SKIP LOCKED
