-- Moves one claim's expiry while its token still matches: to the given instant (UTC), or (NULL) to
-- the database's now plus the lease duration in milliseconds.
-- Parameters: claim_expires_at, lease ms, id, token.
UPDATE ${table}
SET claim_expires_at = COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
WHERE id = ? AND claim_token = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
