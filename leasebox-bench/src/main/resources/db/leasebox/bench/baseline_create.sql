-- The bench's baseline: the smallest table the two bare statements need (baseline_claim.sql,
-- baseline_complete.sql), with one partial index. Not a product schema: a measurement of what the
-- database does alone. Statements separated by lines ending in ";".
CREATE TABLE ${table} (
    id          bigserial PRIMARY KEY,
    status      text      NOT NULL DEFAULT 'PENDING',
    claim_token bigint,
    payload     bytea     NOT NULL
);
CREATE INDEX ${table_name}_pending ON ${table} (id) WHERE status = 'PENDING';
CREATE SEQUENCE ${table}_token_seq;
