-- The `database` claim backend, step 3 of the transaction (after claim_lock.sql): claims the locked
-- rows. The token is the sequence's next value, raised above the row's fence high-water mark when an
-- external lease manager recorded a larger fence there: always strictly above every earlier token of
-- the row. fence_high_water is written with the same value (LASTVAL is the NEXTVAL just taken for this
-- row, and both sides read the row's old fence_high_water), never by reading claim_token back: under
-- sql_mode SIMULTANEOUS_ASSIGNMENT a SET reads the old claim_token, NULL after a completion. The rows
-- are read back with find_by_ids.sql in the same transaction.
-- Time: "now" parameters are NULL when the database's clock judges (UTC_TIMESTAMP(6)), or an instant
-- (UTC) when the store was given an explicit clock (tests); a written expiry is that instant, or the
-- database's now plus the lease duration in milliseconds.
-- Parameters: owner, claimed_at, claim_expires_at, lease ms, then the locked ids (${ids}).
UPDATE ${table}
SET claim_owner         = ?,
    claimed_at          = COALESCE(?, UTC_TIMESTAMP(6)),
    claim_expires_at    = COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND),
    claim_token         = GREATEST(NEXTVAL(${table}_claim_token_seq), fence_high_water + 1),
    fence_high_water    = GREATEST(LASTVAL(${table}_claim_token_seq), fence_high_water + 1),
    claim_attempt_count = claim_attempt_count + 1
WHERE id IN (${ids})
