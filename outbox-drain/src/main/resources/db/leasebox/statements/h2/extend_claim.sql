-- Moves one claim's expiry while its token still matches.
-- Parameters: claim_expires_at, id, token.
UPDATE ${table}
SET claim_expires_at = ?
WHERE id = ? AND claim_token = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
