-- The explicit host migration for claim leases: claim columns, the never-cleared fence high-water
-- mark, the claim-candidate index and the token sequence of the `database` claim backend.
-- Hosts that cannot apply it drain with useClaimLeases = false and accept duplicate emissions.
ALTER TABLE ${table}
    ADD COLUMN claim_owner         text,
    ADD COLUMN claimed_at          timestamptz,
    ADD COLUMN claim_expires_at    timestamptz,
    ADD COLUMN claim_token         bigint,
    ADD COLUMN claim_attempt_count integer NOT NULL DEFAULT 0,
    ADD COLUMN fence_high_water    bigint  NOT NULL DEFAULT 0;

-- Serves exactly the claim-candidate query: it repeats this predicate literally, scans in id order
-- (oldest first) and filters due/unclaimed from the included columns. Delivered and dead-lettered
-- rows, the bulk of an old outbox, are not in the index at all.
CREATE INDEX ${table_name}_claim_candidates ON ${table} (id)
    INCLUDE (status, next_attempt_at, claim_expires_at)
    WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE');

CREATE SEQUENCE ${table}_claim_token_seq AS bigint START WITH 1;
