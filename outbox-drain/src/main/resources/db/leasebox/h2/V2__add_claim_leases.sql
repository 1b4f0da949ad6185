-- The explicit host migration for claim leases (H2): claim columns, the never-cleared fence
-- high-water mark, the claim-candidate index and the token sequence of the `database` backend.
ALTER TABLE ${table} ADD COLUMN claim_owner VARCHAR(1000);
ALTER TABLE ${table} ADD COLUMN claimed_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE ${table} ADD COLUMN claim_expires_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE ${table} ADD COLUMN claim_token BIGINT;
ALTER TABLE ${table} ADD COLUMN claim_attempt_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${table} ADD COLUMN fence_high_water BIGINT NOT NULL DEFAULT 0;

-- H2 has no partial indexes: a plain index on the candidate query's leading columns.
CREATE INDEX ${table}_claim_candidates ON ${table} (status, next_attempt_at, claim_expires_at, id);

CREATE SEQUENCE ${table}_claim_token_seq AS BIGINT START WITH 1;
