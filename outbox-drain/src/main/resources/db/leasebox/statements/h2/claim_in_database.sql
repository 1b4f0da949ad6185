-- The `database` claim backend on H2, optimistic: the inner query picks the oldest eligible rows and
-- the update re-checks eligibility in its own WHERE against the row it actually writes, so a row
-- claimed concurrently in between is skipped, never claimed twice. One statement, atomic under
-- auto-commit. H2 returns the same NEXT VALUE FOR within one row, so claim_token and
-- fence_high_water get the same token, always strictly above the row's previous mark.
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses CURRENT_TIMESTAMP), or an instant when the store was given an explicit clock (tests); a written expiry is
-- that instant, or CURRENT_TIMESTAMP plus the lease duration in milliseconds.
-- Parameters: owner, claimed_at, claim_expires_at, lease ms, (inner) three statuses, now, now,
-- from (QueueHead), limit,
-- (re-check) three statuses, now, now.
SELECT * FROM FINAL TABLE (
    UPDATE ${table}
    SET claim_owner         = ?,
        claimed_at          = COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP),
        claim_expires_at    = COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)),
        claim_token         = GREATEST(NEXT VALUE FOR ${table}_claim_token_seq, fence_high_water + 1),
        fence_high_water    = GREATEST(NEXT VALUE FOR ${table}_claim_token_seq, fence_high_water + 1),
        claim_attempt_count = claim_attempt_count + 1
    WHERE id IN (
        SELECT id FROM ${table}
        WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
          AND status IN (?, ?, ?)
          AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
          AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
          AND id >= ?
        ORDER BY id
        LIMIT ?
    )
      AND status IN (?, ?, ?)
      AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
      AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
)
