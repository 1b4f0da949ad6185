-- Token-checked completion of one claim: the row changes only while its claim_token equals the
-- presented one and its status is claim-completable; claim columns cleared, fence_high_water kept.
-- Parameters: status (null keeps), attempt_count (null: add increment), attempt_increment,
-- set_next_attempt, next_attempt_at, set_delivered, delivered_at, set_last_error, last_error,
-- set_dead_letter_reason, dead_letter_reason, id, token.
SELECT * FROM FINAL TABLE (
    UPDATE ${table}
    SET status             = COALESCE(CAST(? AS VARCHAR(32)), status),
        attempt_count      = COALESCE(CAST(? AS INTEGER), attempt_count + CAST(? AS INTEGER)),
        next_attempt_at    = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS TIMESTAMP WITH TIME ZONE) ELSE next_attempt_at END,
        delivered_at       = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS TIMESTAMP WITH TIME ZONE) ELSE delivered_at END,
        last_error         = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS CHARACTER LARGE OBJECT) ELSE last_error END,
        dead_letter_reason = CASE WHEN CAST(? AS BOOLEAN) THEN CAST(? AS CHARACTER LARGE OBJECT) ELSE dead_letter_reason END,
        claim_owner        = NULL,
        claimed_at         = NULL,
        claim_expires_at   = NULL,
        claim_token        = NULL
    WHERE id = ?
      AND claim_token = ?
      AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
)
