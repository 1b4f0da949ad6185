-- The baseline's completion: the batch's rows, while they still carry the batch's token.
-- Parameters: ids bigint[], token.
UPDATE ${table}
SET status = 'DELIVERED', claim_token = NULL
WHERE id = ANY (?::bigint[]) AND claim_token = ?
RETURNING id
