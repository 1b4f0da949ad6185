-- The claim-candidate query of the leased claim path, ids only: the path asks the coordinator for
-- leases by id and gets the rows themselves after the grant (record_claims.sql RETURNING, or
-- select_eligible_by_ids.sql), so the window of candidates it chooses from (batch x candidate spread)
-- costs an id per row, not a row. Same predicate, order and plan as select_eligible.sql, which the
-- claim-queue index serves.
-- "lapsed": the row still carries an expired claim (its holder died or lost it), which the
-- candidate sample prefers (CandidateSample).
-- "id >= from": where the store's last read found the queue's head (QueueHead), so that the scan
-- descends to it instead of stepping over the entries of rows finalized since the last vacuum; a
-- full read passes the lowest bigint. Run with bitmap scans and sorts turned off for its own
-- transaction (QueueScan), like claim_in_database.sql.
-- Parameters: three statuses, now (due), now (claim expiry), from, limit.
SELECT id, CASE WHEN claim_expires_at IS NULL THEN FALSE ELSE TRUE END AS lapsed FROM ${table}
WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND CASE WHEN status IN (?, ?, ?)
             AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?::timestamptz, now()))
             AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?::timestamptz, now()))
           THEN TRUE ELSE FALSE END
  AND id >= ?
ORDER BY id
LIMIT ?
