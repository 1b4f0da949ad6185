SELECT min(created_at) FROM ${table} WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
