-- Registers or renews the caller's claim style, valid for a number of milliseconds by the database's
-- clock (UTC). Parameters: owner, claim_style, described, validity in milliseconds.
INSERT INTO ${table}_claim_styles (owner, claim_style, described, started_at, expires_at)
VALUES (?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
ON DUPLICATE KEY UPDATE claim_style = VALUES(claim_style), described = VALUES(described),
                        expires_at = VALUES(expires_at)
