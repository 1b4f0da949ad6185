-- The claim styles of a table's live workers, so that a worker whose claims cannot exclude the others'
-- refuses to start. Recorded claims of every backend (the `database` backend, recorded row leases,
-- recorded partition leases) exclude each other through the row itself: the claim columns, the fence
-- high-water mark and FOR UPDATE. Lean claims write nothing before emitting: they exclude only other lean
-- workers of the same lease keys on the same coordinator and namespace. A worker registers its style here
-- at start and heartbeats it; it refuses to start (and a running worker stops) while a live worker of an
-- incompatible style is registered. Expiry is judged by the database's clock.
-- Placeholders: ${table}, ${table_name} as in V1.
CREATE TABLE ${table}_claim_styles (
    owner       text        PRIMARY KEY,
    claim_style text        NOT NULL,
    described   text        NOT NULL,
    started_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
-- The guard row: every registration locks it first, so that two workers starting at once are ordered.
INSERT INTO ${table}_claim_styles (owner, claim_style, described, started_at, expires_at)
VALUES ('', '', 'registration guard', now(), 'infinity');
