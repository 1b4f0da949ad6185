-- Rows a (killed) worker still holds a claim on: after SIGKILL it can write nothing more, so these
-- are exactly the entries that must fail over to another worker. Parameter: the claim owner.
SELECT id FROM ${table} WHERE claim_owner = ? AND claim_token IS NOT NULL ORDER BY id
