-- Ordered mode's filter, spliced into slot_select.sql and slot_claim_lock.sql: a row with a partition
-- key is eligible only when no earlier row (lower id) of the same key is still open. Open = not
-- DELIVERED and not DEAD_LETTERED: a claimed, deferred, retrying or parked (FAILED) head holds its key
-- back. The subquery is a plain (non-locking) read, served by the (partition_key, id) index.
      AND (o.partition_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM ${table} AS e
            WHERE e.partition_key = o.partition_key
              AND e.id < o.id
              AND e.status NOT IN ('DELIVERED', 'DEAD_LETTERED')))
