-- Start-up check: fails when the table (or its database) does not exist.
SELECT id, idempotency_key, status, payload, headers FROM ${table} WHERE 1 = 0
