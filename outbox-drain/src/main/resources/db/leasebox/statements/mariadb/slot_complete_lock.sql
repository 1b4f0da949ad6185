-- Lean partition claims, the completion of a batch, step 2 of one READ COMMITTED transaction (after
-- slot_hold.sql kept only the completions whose grant is their slot's newest recorded one): locks the
-- rows that may be written, by primary key. A row qualifies only while it is in the completion's slot,
-- its fence_high_water is below the grant's fence (one grant completes a row at most once: its next
-- emission carries a newer grant's fence; a newer grant's completion has raised it), it is
-- claim-completable, and no unexpired recorded claim is on it. Held by this transaction, those conditions stay true until slot_complete.sql writes.
-- The batch travels as one JSON array (JSON_TABLE); the ids again as ${ids}, one "?" each, so that only
-- the batch's rows are read whatever the plan.
-- Parameters: the batch (JSON: id, slot, token per element), the ids, now (NULL: UTC_TIMESTAMP(6)).
SELECT t.id FROM ${table} AS t
JOIN JSON_TABLE(?, '$[*]' COLUMNS (
        id    BIGINT PATH '$.id',
        slot  INT    PATH '$.slot',
        token BIGINT PATH '$.token')) AS c ON t.id = c.id
WHERE t.id IN (${ids})
  AND t.lease_slot = c.slot
  AND t.fence_high_water < c.token
  AND t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
ORDER BY t.id
FOR UPDATE
