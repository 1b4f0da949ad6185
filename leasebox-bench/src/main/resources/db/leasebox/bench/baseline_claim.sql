-- The baseline's claim: one token per batch, the batch's rows locked with SKIP LOCKED, oldest first.
-- ${batch} is the batch size, a literal. No parameters.
UPDATE ${table}
SET claim_token = (SELECT nextval('${table}_token_seq'))
WHERE id IN (SELECT id FROM ${table}
             WHERE status = 'PENDING' AND claim_token IS NULL
             ORDER BY id
             LIMIT ${batch}
             FOR UPDATE SKIP LOCKED)
RETURNING id, claim_token, payload
