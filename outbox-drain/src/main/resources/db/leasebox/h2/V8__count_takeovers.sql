-- Claims taken over, counted in the table (H2): see the PostgreSQL script for what it is for.
-- Placeholders: ${table}, ${table_name}.
ALTER TABLE ${table}_claim_styles ADD COLUMN taken_over BIGINT DEFAULT 0 NOT NULL;
