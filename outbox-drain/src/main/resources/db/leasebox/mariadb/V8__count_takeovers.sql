-- Claims taken over, counted in the table (MariaDB): see the PostgreSQL script for what it is for.
-- Placeholders: ${table}, ${table_name}. The statement can run again after an interrupted apply.
ALTER TABLE ${table}_claim_styles ADD COLUMN IF NOT EXISTS taken_over BIGINT NOT NULL DEFAULT 0;
