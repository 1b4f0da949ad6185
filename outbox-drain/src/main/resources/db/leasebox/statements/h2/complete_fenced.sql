-- The lean claim mode's completion of one claim: no claim record is needed. The row changes only
-- while its status is claim-completable, the presented fence is strictly above its
-- fence_high_water and no unexpired recorded claim is on it; the write raises fence_high_water to the fence, clears the claim columns and
-- counts the claim in claim_attempt_count. The row's claim_token is neither required nor compared.
-- Parameters: as complete.sql (status … dead_letter_reason), then fence (new high-water), id, fence, now.
SELECT * FROM FINAL TABLE (
    UPDATE ${table}
    SET status              = COALESCE(CAST(? AS VARCHAR(32)), status),
        attempt_count       = COALESCE(CAST(? AS INTEGER), attempt_count + CAST(? AS INTEGER)),
        next_attempt_at     = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS TIMESTAMP WITH TIME ZONE) ELSE next_attempt_at END,
        delivered_at        = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS TIMESTAMP WITH TIME ZONE) ELSE delivered_at END,
        last_error          = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS CHARACTER LARGE OBJECT) ELSE last_error END,
        dead_letter_reason  = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS CHARACTER LARGE OBJECT) ELSE dead_letter_reason END,
        claim_owner         = NULL,
        claimed_at          = NULL,
        claim_expires_at    = NULL,
        claim_token         = NULL,
        fence_high_water    = CAST(? AS BIGINT),
        claim_attempt_count = claim_attempt_count + 1
    WHERE id = ?
      AND CAST(? AS BIGINT) > fence_high_water
      AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
      AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
)
