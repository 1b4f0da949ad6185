-- Lean partition claims, the completion of a batch in one statement. A row changes only while the
-- presenting grant is its slot's newest recorded one ("held": same slot, same fence, share-locked for
-- this statement, so a newer grant's registration waits for it and every later completion under the
-- older grant is refused), the row's fence_high_water is below the grant's fence (one grant completes a
-- row at most once: its next emission carries a newer grant's fence; a newer grant's completion has
-- raised it), the row is claim-completable, and no unexpired recorded claim is on it. fence_high_water
-- becomes the fence.
-- Plan: rows are found by primary key only (the row conditions in a CASE, the ids once more as
-- "t.id = ANY"), so only the batch's rows are touched whatever the statistics say (see record_claims.sql).
-- Parameters (arrays): id, slot, token (the grant's fence), status (null keeps), attempt_count (null:
-- add attempt_increment), attempt_increment, set_next_attempt, next_attempt_at, set_delivered,
-- delivered_at, set_last_error, last_error, set_dead_letter_reason, dead_letter_reason; then now, then
-- the ids again.
-- next_attempt_at and delivered_at travel as microseconds since the epoch (bigint[]): with no text
-- array in the batch to format and parse, the driver sends the arrays in binary.
WITH c AS (
    SELECT * FROM unnest(?::bigint[], ?::integer[], ?::bigint[], ?::text[], ?::integer[], ?::integer[], ?::boolean[],
                         ?::bigint[], ?::boolean[], ?::bigint[], ?::boolean[], ?::text[], ?::boolean[], ?::text[])
        AS c(id, slot, token, status, attempt_count, attempt_increment, set_next_attempt, next_attempt_at,
             set_delivered, delivered_at, set_last_error, last_error, set_dead_letter_reason, dead_letter_reason)
), held AS (
    SELECT s.slot, s.fence_high_water AS fence
    FROM ${table}_lease_slots AS s
    JOIN (SELECT DISTINCT slot, token FROM c) AS g ON s.slot = g.slot AND s.fence_high_water = g.token
    FOR SHARE OF s
)
UPDATE ${table} AS t
SET status             = COALESCE(c.status, t.status),
    attempt_count      = COALESCE(c.attempt_count, t.attempt_count + c.attempt_increment),
    next_attempt_at    = CASE WHEN c.set_next_attempt THEN timestamptz 'epoch' + c.next_attempt_at * interval '1 microsecond' ELSE t.next_attempt_at END,
    delivered_at       = CASE WHEN c.set_delivered THEN timestamptz 'epoch' + c.delivered_at * interval '1 microsecond' ELSE t.delivered_at END,
    last_error         = CASE WHEN c.set_last_error THEN c.last_error ELSE t.last_error END,
    dead_letter_reason = CASE WHEN c.set_dead_letter_reason THEN c.dead_letter_reason ELSE t.dead_letter_reason END,
    fence_high_water   = c.token
FROM c JOIN held AS h ON h.slot = c.slot AND h.fence = c.token
WHERE t.id = c.id
  AND CASE WHEN t.lease_slot = c.slot
             AND t.fence_high_water < c.token
             AND t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
             AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= COALESCE(?::timestamptz, now()))
           THEN TRUE ELSE FALSE END
  AND t.id = ANY (?::bigint[])
RETURNING t.*, c.token AS presented_token
