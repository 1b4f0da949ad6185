-- Registers or renews the caller's claim style, valid for a number of milliseconds by the database's
-- clock. Parameters: owner, claim_style, described, validity in milliseconds.
MERGE INTO ${table}_claim_styles (owner, claim_style, described, started_at, expires_at) KEY (owner)
VALUES (?, ?, ?, CURRENT_TIMESTAMP, DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP))
