-- Moves one claim's expiry while its token still matches.
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses CURRENT_TIMESTAMP), or an instant when the store was given an explicit clock (tests); a written expiry is
-- that instant, or now() plus the lease duration in milliseconds.
-- Parameters: claim_expires_at, lease ms, id, token.
UPDATE ${table}
SET claim_expires_at = COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP))
WHERE id = ? AND claim_token = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
