-- Records one externally granted lease as the row's claim, only when its token is strictly above the
-- row's fence high-water mark (an equal token is refused) and the row is eligible at "now". Run once
-- per grant inside one transaction; the claimed rows are read back with find_by_ids.sql and kept where
-- they carry the grant's token.
-- Parameters: owner, claimed_at, claim_expires_at, token, token, id, token, three statuses, now, now.
UPDATE ${table}
SET claim_owner         = ?,
    claimed_at          = ?,
    claim_expires_at    = ?,
    claim_token         = ?,
    fence_high_water    = ?,
    claim_attempt_count = claim_attempt_count + 1
WHERE id = ?
  AND ? > fence_high_water
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
