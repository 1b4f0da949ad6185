-- The lean claim mode's completion of a batch, in one statement: no claim record is needed. A row
-- changes only while its status is claim-completable and the presented fence (the holder's lease
-- fence) is strictly above its fence_high_water and no unexpired recorded claim is on it (a recorded
-- worker of another fleet holds it and will complete by token); the write raises fence_high_water to
-- the fence, so every older holder is refused from then on, clears the claim columns (an expired
-- recorded claim included) and counts the claim in claim_attempt_count. The row's claim_token is neither
-- required nor compared. Plan: rows are found by primary key only (the status condition in a CASE,
-- the ids once more as "t.id = ANY"), so only the batch's rows are touched whatever the statistics
-- say (see record_claims.sql). Each returned row names the fence that wrote it, which tells two
-- completions of one row in a batch apart.
-- Parameters (arrays): as complete_all.sql: id, fence, status (null keeps), attempt_count (null: add
-- attempt_increment), attempt_increment, set_next_attempt, next_attempt_at, set_delivered,
-- delivered_at, set_last_error, last_error, set_dead_letter_reason, dead_letter_reason; then now, then the
-- ids again.
-- next_attempt_at and delivered_at travel as microseconds since the epoch (bigint[]): with no text
-- array in the batch to format and parse, the driver sends the arrays in binary.
UPDATE ${table} AS t
SET status              = COALESCE(c.status, t.status),
    attempt_count       = COALESCE(c.attempt_count, t.attempt_count + c.attempt_increment),
    next_attempt_at     = CASE WHEN c.set_next_attempt THEN timestamptz 'epoch' + c.next_attempt_at * interval '1 microsecond' ELSE t.next_attempt_at END,
    delivered_at        = CASE WHEN c.set_delivered THEN timestamptz 'epoch' + c.delivered_at * interval '1 microsecond' ELSE t.delivered_at END,
    last_error          = CASE WHEN c.set_last_error THEN c.last_error ELSE t.last_error END,
    dead_letter_reason  = CASE WHEN c.set_dead_letter_reason THEN c.dead_letter_reason ELSE t.dead_letter_reason END,
    claim_owner         = NULL,
    claimed_at          = NULL,
    claim_expires_at    = NULL,
    claim_token         = NULL,
    fence_high_water    = c.token,
    claim_attempt_count = t.claim_attempt_count + 1
FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::integer[], ?::integer[], ?::boolean[], ?::bigint[],
            ?::boolean[], ?::bigint[], ?::boolean[], ?::text[], ?::boolean[], ?::text[])
     AS c(id, token, status, attempt_count, attempt_increment, set_next_attempt, next_attempt_at,
          set_delivered, delivered_at, set_last_error, last_error, set_dead_letter_reason, dead_letter_reason)
WHERE t.id = c.id
  AND c.token > t.fence_high_water
  AND CASE WHEN t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
             AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= COALESCE(?::timestamptz, now()))
           THEN TRUE ELSE FALSE END
  AND t.id = ANY (?::bigint[])
RETURNING t.id, t.status, t.attempt_count, t.next_attempt_at, t.delivered_at, t.last_error, t.dead_letter_reason,
          t.claim_attempt_count, t.fence_high_water, c.token AS presented_token
