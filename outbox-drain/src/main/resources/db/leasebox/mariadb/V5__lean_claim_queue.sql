-- The PostgreSQL V5 replaces the claim-candidate index by one whose columns no claim writes, so that
-- claims are HOT updates there. MariaDB (InnoDB) has neither partial indexes nor HOT updates: its
-- candidate index stays as V2 made it, under the new name, so that `leasebox schema` and the readiness
-- checks tell a V5 table by its index on every database.
-- Placeholders: ${table} and ${table_name} as in V1. IF EXISTS: running it again changes nothing.
ALTER TABLE ${table} RENAME INDEX IF EXISTS ${table_name}_claim_candidates TO ${table_name}_claim_queue;
