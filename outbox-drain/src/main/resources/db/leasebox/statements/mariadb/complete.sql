-- Token-checked completion of one claim: the row changes only while its claim_token equals the
-- presented one and its status is claim-completable; claim columns cleared, fence_high_water kept.
-- Run once per completion inside one transaction; the completed rows are read back with find_by_ids.sql.
-- Parameters: status (null keeps), attempt_count (null: add increment), attempt_increment,
-- set_next_attempt, next_attempt_at, set_delivered, delivered_at, set_last_error, last_error,
-- set_dead_letter_reason, dead_letter_reason, id, token.
UPDATE ${table}
SET status             = COALESCE(?, status),
    attempt_count      = COALESCE(?, attempt_count + ?),
    next_attempt_at    = CASE WHEN ? THEN ? ELSE next_attempt_at END,
    delivered_at       = CASE WHEN ? THEN ? ELSE delivered_at END,
    last_error         = CASE WHEN ? THEN ? ELSE last_error END,
    dead_letter_reason = CASE WHEN ? THEN ? ELSE dead_letter_reason END,
    claim_owner        = NULL,
    claimed_at         = NULL,
    claim_expires_at   = NULL,
    claim_token        = NULL
WHERE id = ?
  AND claim_token = ?
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
