-- Moves claim expiries while each claim's token still matches, in one statement. Plan: rows are
-- found by primary key only (the status condition in a CASE, the ids once more as "t.id = ANY"), so
-- only the batch's rows are touched whatever the statistics say (see record_claims.sql).
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses now()), or an instant when the store was given an explicit clock (tests); a written expiry is
-- that instant, or now() plus the lease duration in milliseconds.
-- Parameters: claim_expires_at, lease ms, ids bigint[], tokens bigint[], ids bigint[] again.
UPDATE ${table} AS t
SET claim_expires_at = COALESCE(?::timestamptz, now() + ?::bigint * interval '1 millisecond')
FROM unnest(?::bigint[], ?::bigint[]) AS c(id, token)
WHERE t.id = c.id
  AND t.claim_token = c.token
  AND CASE WHEN t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE') THEN TRUE ELSE FALSE END
  AND t.id = ANY (?::bigint[])
RETURNING t.id
