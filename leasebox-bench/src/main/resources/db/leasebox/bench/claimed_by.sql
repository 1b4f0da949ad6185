-- Rows a (killed) worker still holds a claim on: after SIGKILL it can write nothing more, so these
-- are exactly the entries that must fail over to another worker, with the claim as recorded (grant
-- time and expiry, which renewals move). Parameter: the claim owner.
SELECT id, claimed_at, claim_expires_at FROM ${table} WHERE claim_owner = ? AND claim_token IS NOT NULL ORDER BY id
