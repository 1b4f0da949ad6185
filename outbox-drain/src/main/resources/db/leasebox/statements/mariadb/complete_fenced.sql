-- The lean claim mode's completion of one claim: no claim record is needed. The row changes only
-- while its status is claim-completable, the presented fence is strictly above its fence_high_water
-- and no unexpired recorded claim is on it; the write raises fence_high_water to the fence, clears the
-- claim columns and counts the claim in claim_attempt_count. The row's claim_token is not compared.
-- Parameters: as complete.sql (status … dead_letter_reason), then fence (new high-water), id, fence, now.
UPDATE ${table}
SET status              = COALESCE(?, status),
    attempt_count       = COALESCE(?, attempt_count + ?),
    next_attempt_at     = CASE WHEN ? THEN ? ELSE next_attempt_at END,
    delivered_at        = CASE WHEN ? THEN ? ELSE delivered_at END,
    last_error          = CASE WHEN ? THEN ? ELSE last_error END,
    dead_letter_reason  = CASE WHEN ? THEN ? ELSE dead_letter_reason END,
    claim_owner         = NULL,
    claimed_at          = NULL,
    claim_expires_at    = NULL,
    claim_token         = NULL,
    fence_high_water    = ?,
    claim_attempt_count = claim_attempt_count + 1
WHERE id = ?
  AND ? > fence_high_water
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
