-- Terminal rows that still carry a claim token: must be 0 (completions clear the claim fields).
SELECT count(*) FROM ${table} WHERE status IN ('DELIVERED', 'DEAD_LETTERED') AND claim_token IS NOT NULL
