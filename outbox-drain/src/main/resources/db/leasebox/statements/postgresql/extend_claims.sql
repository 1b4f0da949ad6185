-- Moves claim expiries while each claim's token still matches, in one statement. Plan: rows are
-- found by primary key only (the status condition in a CASE, the ids once more as "t.id = ANY"), so
-- only the batch's rows are touched whatever the statistics say (see record_claims.sql).
-- Parameters: claim_expires_at, ids bigint[], tokens bigint[], ids bigint[] again.
UPDATE ${table} AS t
SET claim_expires_at = ?
FROM unnest(?::bigint[], ?::bigint[]) AS c(id, token)
WHERE t.id = c.id
  AND t.claim_token = c.token
  AND CASE WHEN t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE') THEN TRUE ELSE FALSE END
  AND t.id = ANY (?::bigint[])
RETURNING t.id
