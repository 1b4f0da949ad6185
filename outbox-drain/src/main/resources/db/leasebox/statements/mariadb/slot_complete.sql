-- Lean partition claims, the completion of one row, run once per row (in id order) inside the
-- transaction that share-locked the slot rows (slot_hold.sql) and kept only the completions whose
-- grant is their slot's newest recorded one. A row changes only while it is in that slot, its
-- fence_high_water is not above the grant's fence (a retry under the same grant completes again; a
-- newer grant's completion has raised it), it is claim-completable, and no unexpired recorded claim
-- is on it. fence_high_water becomes the fence. The rows written are read back with find_by_ids.sql.
-- Parameters: as complete.sql (status … dead_letter_reason), then fence (new high-water), id, slot,
-- fence, now.
UPDATE ${table}
SET status             = COALESCE(?, status),
    attempt_count      = COALESCE(?, attempt_count + ?),
    next_attempt_at    = CASE WHEN ? THEN ? ELSE next_attempt_at END,
    delivered_at       = CASE WHEN ? THEN ? ELSE delivered_at END,
    last_error         = CASE WHEN ? THEN ? ELSE last_error END,
    dead_letter_reason = CASE WHEN ? THEN ? ELSE dead_letter_reason END,
    fence_high_water   = ?
WHERE id = ?
  AND lease_slot = ?
  AND fence_high_water <= ?
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
