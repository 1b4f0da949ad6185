-- Recorded partition claims, step 4 (after slot_claim_lock.sql): claims the locked rows. Each row's
-- token is its slot's recorded fence (the caller's grant, share-locked since slot_hold.sql), or the
-- row's fence_high_water + 1 when that is larger (a retry under the same grant): strictly above every
-- earlier token of the row. fence_high_water is written with the same expression, never by reading
-- claim_token back: under sql_mode SIMULTANEOUS_ASSIGNMENT a SET reads the old claim_token (NULL after a
-- completion). The rows are read back with find_by_ids.sql in the same transaction.
-- Time: claimed_at and claim_expires_at are NULL when the database's clock judges (then
-- UTC_TIMESTAMP(6), plus the lease duration in milliseconds for the expiry).
-- Parameters: owner, claimed_at, claim_expires_at, lease ms, then the locked ids (${ids}).
UPDATE ${table} AS t
SET claim_owner         = ?,
    claimed_at          = COALESCE(?, UTC_TIMESTAMP(6)),
    claim_expires_at    = COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND),
    claim_token         = GREATEST((SELECT s.fence_high_water FROM ${table}_lease_slots AS s
                                    WHERE s.slot = t.lease_slot), fence_high_water + 1),
    fence_high_water    = GREATEST((SELECT s.fence_high_water FROM ${table}_lease_slots AS s
                                    WHERE s.slot = t.lease_slot), fence_high_water + 1),
    claim_attempt_count = claim_attempt_count + 1
WHERE id IN (${ids})
