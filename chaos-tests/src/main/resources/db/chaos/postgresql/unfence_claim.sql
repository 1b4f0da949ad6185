-- --unsafe-no-fence only: makes the row carry the presented token, so the token-checked completion
-- that follows is accepted whoever holds the row now. This is the bug the fencing scenarios must catch.
-- Parameters: token, id.
UPDATE ${table} SET claim_token = ?
WHERE id = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
