-- The PostgreSQL V5 replaces the claim-candidate index by one whose columns no claim writes, so that
-- claims are HOT updates there. H2 has neither partial indexes nor HOT updates: its candidate index
-- stays as V2 made it, under the new name, so that `leasebox schema` tells a V5 table by its index on
-- either database.
-- Placeholders: ${table} as in V1.
DROP INDEX ${table}_claim_candidates;

CREATE INDEX ${table}_claim_queue ON ${table} (status, next_attempt_at, claim_expires_at, id);
