-- The `database` claim backend: one statement per batch, atomic by itself under auto-commit. The
-- subquery's FOR UPDATE SKIP LOCKED row locks are held until this statement's own transaction ends,
-- so concurrent workers skip each other's rows instead of waiting, and no row is claimed twice.
-- The token is the sequence's next value, raised above the row's fence high-water mark when an
-- external lease manager recorded a larger fence there: it is always strictly above every earlier
-- token of the row. t.fence_high_water is the locked, current row version, so both columns get
-- the same value. Skipped rows may consume sequence values (gaps are harmless).
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses now()), or an instant when the store was given an explicit clock (tests); a written expiry is
-- that instant, or now() plus the lease duration in milliseconds.
-- Plan (V5): the rows come from the claim-queue index (id order, finalized rows absent) and one
-- primary-key probe each, whatever the table's statistics say. The literal status list proves the
-- partial index's predicate; the row's own conditions sit in one CASE, so the planner neither
-- estimates them from statistics nor prefers another index for them; the batch size is a literal
-- (${batch}, substituted per batch size), because a LIMIT parameter makes a generic plan expect a
-- tenth of the table and hash-join the whole table to it (80 ms for 100 rows of 100,000 after
-- VACUUM ANALYZE, against 9 ms; PostgreSqlClaimPlanIT).
-- "id >= from": where the store's last read found the queue's head (QueueHead), so that the scan
-- descends to it instead of stepping over the entries of rows finalized since the last vacuum; a
-- full read passes the lowest bigint. The planner misjudges that range (status and id are
-- correlated), so the statement runs with bitmap scans and sorts turned off for its own transaction
-- (QueueScan), which leaves the ordered walk of the claim-queue index.
-- previous_token: the claim token the row carried before this claim, read from the locked row version
-- (NULL after a completion): not NULL means this claim took the row over from a claim that expired
-- unfinished (counted as a takeover, decision 0040). It costs no extra read: the subquery has the row.
-- Parameters: owner, claimed_at, claim_expires_at, lease ms, three statuses, now (due), now (expiry),
-- from.
UPDATE ${table} AS t
SET claim_owner         = ?,
    claimed_at          = COALESCE(?::timestamptz, now()),
    claim_expires_at    = COALESCE(?::timestamptz, now() + ?::bigint * interval '1 millisecond'),
    claim_token         = GREATEST(c.next_token, t.fence_high_water + 1),
    fence_high_water    = GREATEST(c.next_token, t.fence_high_water + 1),
    claim_attempt_count = t.claim_attempt_count + 1
FROM (
    SELECT id, nextval('${table}_claim_token_seq') AS next_token, claim_token AS previous_token
    FROM ${table}
    WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
      AND CASE WHEN status IN (?, ?, ?)
                 AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?::timestamptz, now()))
                 AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?::timestamptz, now()))
               THEN TRUE ELSE FALSE END
      AND id >= ?
    ORDER BY id
    LIMIT ${batch}
    FOR UPDATE SKIP LOCKED
) AS c
WHERE t.id = c.id
RETURNING t.*, c.previous_token
