-- Registers or renews the caller's claim style, valid for a number of milliseconds by the database's
-- clock. Parameters: owner, claim_style, described, validity in milliseconds.
INSERT INTO ${table}_claim_styles AS s (owner, claim_style, described, started_at, expires_at)
VALUES (?, ?, ?, now(), now() + ? * interval '1 millisecond')
ON CONFLICT (owner) DO UPDATE SET claim_style = EXCLUDED.claim_style, described = EXCLUDED.described,
                                  expires_at = EXCLUDED.expires_at
