-- The claim styles of a table's live workers (MariaDB): see the PostgreSQL script for what it is for.
-- Placeholders: ${table}, ${table_name}. Both statements can run again after an interrupted apply; the
-- script counts as applied only when the guard row exists.
CREATE TABLE IF NOT EXISTS ${table}_claim_styles (
    owner       VARCHAR(700)  NOT NULL PRIMARY KEY,
    claim_style VARCHAR(4000) NOT NULL,
    described   VARCHAR(4000) NOT NULL,
    started_at  DATETIME(6)   NOT NULL,
    expires_at  DATETIME(6)   NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- The guard row: every registration locks it first, so that two workers starting at once are ordered.
-- IGNORE keeps an existing guard row when the script runs again after an interrupted apply.
INSERT IGNORE INTO ${table}_claim_styles (owner, claim_style, described, started_at, expires_at)
VALUES ('', '', 'registration guard', UTC_TIMESTAMP(6), '9999-12-31 00:00:00');
