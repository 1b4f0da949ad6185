-- The explicit host migration for claim leases (MariaDB): claim columns, the never-cleared fence
-- high-water mark, the claim-candidate index and the token sequence of the `database` claim backend.
-- Hosts that cannot apply it drain with useClaimLeases = false and accept duplicate emissions.
-- MariaDB commits each DDL statement on its own, so an interrupted apply can leave part of a script
-- behind: every statement here can run again (IF NOT EXISTS), and the script counts as applied only
-- when all of its objects exist.
ALTER TABLE ${table}
    ADD COLUMN IF NOT EXISTS claim_owner         VARCHAR(1000),
    ADD COLUMN IF NOT EXISTS claimed_at          DATETIME(6),
    ADD COLUMN IF NOT EXISTS claim_expires_at    DATETIME(6),
    ADD COLUMN IF NOT EXISTS claim_token         BIGINT,
    ADD COLUMN IF NOT EXISTS claim_attempt_count INT    NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS fence_high_water    BIGINT NOT NULL DEFAULT 0;

-- MariaDB has no partial indexes: the candidate query reads this index by status, in id order.
CREATE INDEX IF NOT EXISTS ${table_name}_claim_candidates ON ${table} (status, id);

-- A MariaDB sequence (non-transactional, no lock held): NEXTVAL in the claim statement.
CREATE SEQUENCE IF NOT EXISTS ${table}_claim_token_seq START WITH 1 INCREMENT BY 1 CACHE 1000;
