-- The rows one owner holds a claim on, with their tokens. ?1 = owner
SELECT id, claim_token FROM ${table} WHERE claim_owner = ? AND claim_token IS NOT NULL ORDER BY id
