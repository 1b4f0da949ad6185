-- Start-up check: fails when the V2 claim columns are missing.
SELECT claim_owner, claimed_at, claim_expires_at, claim_token, claim_attempt_count, fence_high_water
FROM ${table} WHERE 1 = 0
