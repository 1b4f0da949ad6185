-- Parameters: idempotency_key, partition_key, type, payload, headers, created_at (UTC).
INSERT INTO ${table} (idempotency_key, partition_key, type, payload, headers, status, attempt_count, created_at)
VALUES (?, ?, ?, ?, ?, 'PENDING', 0, ?)
RETURNING *
