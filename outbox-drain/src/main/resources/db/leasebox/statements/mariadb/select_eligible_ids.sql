-- The claim-candidate query of the leased claim path, ids only (see the PostgreSQL statement).
-- "lapsed": the row still carries an expired claim (its holder died or lost it), which the
-- candidate sample prefers (CandidateSample).
-- MariaDB has no partial index: each of the three bound statuses is read from the (status, id)
-- index in id order, at most "limit" rows each, and the union is cut to the oldest "limit" (a sort of
-- at most three times "limit" ids, whatever the backlog). A status bound twice reads the same rows,
-- which UNION removes.
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses UTC_TIMESTAMP(6)), or an instant (UTC) when the store was given an explicit clock (tests).
-- "id >= from": where the store's last read found the queue's head (QueueHead; a full read passes
-- the lowest bigint).
-- Parameters, once per status: status, now (due), now (claim expiry), from, limit; then limit.
SELECT id, lapsed FROM (
    (SELECT id, claim_expires_at IS NOT NULL AS lapsed FROM ${table}
     WHERE status = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND id >= ?
     ORDER BY id LIMIT ?)
    UNION
    (SELECT id, claim_expires_at IS NOT NULL AS lapsed FROM ${table}
     WHERE status = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND id >= ?
     ORDER BY id LIMIT ?)
    UNION
    (SELECT id, claim_expires_at IS NOT NULL AS lapsed FROM ${table}
     WHERE status = ? AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
       AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
       AND id >= ?
     ORDER BY id LIMIT ?)
    ORDER BY id LIMIT ?) AS c
ORDER BY id
