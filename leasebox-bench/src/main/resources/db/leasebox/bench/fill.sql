-- Fills a bench table with PENDING entries in one statement (PostgreSQL): the bench needs tens of
-- thousands of rows in a second, which row-by-row enqueueing cannot give. The rows look like what
-- OutboxWriter writes: a unique idempotency key, a payload of the given size, no headers.
-- Parameters: payload bytes, created_at, first sequence number, last sequence number.
INSERT INTO ${table} (idempotency_key, type, payload, headers, status, attempt_count, created_at)
SELECT 'bench-' || g, 'leasebox.bench', convert_to(rpad('{"seq":' || g || '}', ?::integer), 'UTF8'), '{}', 'PENDING', 0,
       ?::timestamptz
FROM generate_series(?::bigint, ?::bigint) AS g
