-- Gives a bench table the history a long-lived outbox has (MariaDB): as fill_history.sql does on
-- PostgreSQL, DELIVERED rows older than the backlog, numbered 1 to ${last}.
-- Parameters: payload bytes, created_at, delivered_at (UTC).
INSERT INTO ${table} (idempotency_key, type, payload, headers, status, attempt_count, created_at, delivered_at)
SELECT CONCAT('bench-history-', seq), 'leasebox.bench', CAST(RPAD(CONCAT('{"seq":', seq, '}'), ?, ' ') AS BINARY),
       '{}', 'DELIVERED', 1, ?, ?
FROM seq_1_to_${last}
