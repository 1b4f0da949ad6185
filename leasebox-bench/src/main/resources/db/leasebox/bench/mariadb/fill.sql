-- Fills a bench table with PENDING entries in one statement (MariaDB): as fill.sql does on PostgreSQL,
-- with the Sequence engine's seq_<first>_to_<last> table in place of generate_series (its bounds are
-- written into the statement: ${first} and ${last}).
-- Parameters: payload bytes, created_at (UTC).
INSERT INTO ${table} (idempotency_key, type, payload, headers, status, attempt_count, created_at)
SELECT CONCAT('bench-', seq), 'leasebox.bench', CAST(RPAD(CONCAT('{"seq":', seq, '}'), ?, ' ') AS BINARY), '{}',
       'PENDING', 0, ?
FROM seq_${first}_to_${last}
