-- The claim styles of a table's live workers (H2): see the PostgreSQL script for what it is for.
-- Placeholders: ${table}, ${table_name}.
CREATE TABLE ${table}_claim_styles (
    owner       VARCHAR(1000)            PRIMARY KEY,
    claim_style VARCHAR(4000)            NOT NULL,
    described   VARCHAR(4000)            NOT NULL,
    started_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
INSERT INTO ${table}_claim_styles (owner, claim_style, described, started_at, expires_at)
VALUES ('', '', 'registration guard', CURRENT_TIMESTAMP, TIMESTAMP WITH TIME ZONE '9999-12-31 00:00:00+00');
