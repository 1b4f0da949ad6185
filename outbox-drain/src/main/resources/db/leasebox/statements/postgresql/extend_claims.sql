-- Moves claim expiries while each claim's token still matches, in one statement.
-- Parameters: claim_expires_at, ids bigint[], tokens bigint[].
UPDATE ${table} AS t
SET claim_expires_at = ?
FROM unnest(?::bigint[], ?::bigint[]) AS c(id, token)
WHERE t.id = c.id
  AND t.claim_token = c.token
  AND t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
RETURNING t.id
