-- Lean partition claims, the completion of a batch, step 3 (after slot_complete_lock.sql): writes the
-- locked rows in one statement, each from its element of the batch (JSON_TABLE): per column a value
-- or "keep", as complete.sql; fence_high_water becomes the grant's fence. No assignment reads a column
-- another one writes (a multi-table UPDATE has no assignment order). The rows are read back with
-- find_by_ids.sql in the same transaction.
-- Parameters: the batch (JSON), then the locked ids (${ids}).
UPDATE ${table} AS t
JOIN JSON_TABLE(?, '$[*]' COLUMNS (
        id                     BIGINT      PATH '$.id',
        token                  BIGINT      PATH '$.token',
        status                 VARCHAR(32) PATH '$.status',
        attempt_count          INT         PATH '$.attemptCount',
        attempt_increment      INT         PATH '$.attemptIncrement',
        set_next_attempt       INT         PATH '$.setNextAttempt',
        next_attempt_at        DATETIME(6) PATH '$.nextAttemptAt',
        set_delivered          INT         PATH '$.setDelivered',
        delivered_at           DATETIME(6) PATH '$.deliveredAt',
        set_last_error         INT         PATH '$.setLastError',
        last_error             LONGTEXT    PATH '$.lastError',
        set_dead_letter_reason INT         PATH '$.setDeadLetterReason',
        dead_letter_reason     LONGTEXT    PATH '$.deadLetterReason')) AS c ON t.id = c.id
SET t.status             = COALESCE(c.status, t.status),
    t.attempt_count      = COALESCE(c.attempt_count, t.attempt_count + c.attempt_increment),
    t.next_attempt_at    = CASE WHEN c.set_next_attempt = 1 THEN c.next_attempt_at ELSE t.next_attempt_at END,
    t.delivered_at       = CASE WHEN c.set_delivered = 1 THEN c.delivered_at ELSE t.delivered_at END,
    t.last_error         = CASE WHEN c.set_last_error = 1 THEN c.last_error ELSE t.last_error END,
    t.dead_letter_reason = CASE WHEN c.set_dead_letter_reason = 1 THEN c.dead_letter_reason ELSE t.dead_letter_reason END,
    t.fence_high_water   = c.token
WHERE t.id IN (${ids})
