SELECT id, idempotency_key, attempt_count, dead_letter_reason, last_error, type, created_at
  FROM ${table}
 WHERE status = 'DEAD_LETTERED'
 ORDER BY id DESC
 LIMIT 10
