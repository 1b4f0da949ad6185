-- Selection on a table without claim columns (useClaimLeases = false, V1 only).
-- MariaDB has no partial index: each of the three bound statuses is read from the (status, id)
-- index in id order, at most "limit" rows each, and the union is cut to the oldest "limit" (a sort of
-- at most three times "limit" ids, whatever the backlog). A status bound twice reads the same rows,
-- which UNION removes.
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses UTC_TIMESTAMP(6)), or an instant (UTC) when the store was given an explicit clock (tests).
-- Parameters, once per status: status, now (due), limit; then limit.
SELECT t.* FROM (
    (SELECT id FROM ${table}
     WHERE status = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
     ORDER BY id LIMIT ?)
    UNION
    (SELECT id FROM ${table}
     WHERE status = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
     ORDER BY id LIMIT ?)
    UNION
    (SELECT id FROM ${table}
     WHERE status = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
     ORDER BY id LIMIT ?)
    ORDER BY id LIMIT ?) AS c
JOIN ${table} AS t ON t.id = c.id
ORDER BY t.id
