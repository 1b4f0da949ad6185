-- The outbox as the checker reads it after a run.
SELECT id, idempotency_key, status, attempt_count, fence_high_water, claim_token, claim_owner, partition_key
FROM ${table}
ORDER BY id
