-- Gives a bench table the history a long-lived outbox has: DELIVERED rows older than the backlog,
-- in one statement. With them (and ANALYZE), the table's statistics say what production statistics
-- say, that few rows are eligible, and the planner serves the claim and candidate queries from the
-- claim-candidate index. Without them, statistics taken right after the fill say every row is
-- eligible, and both the database backend's claim and the candidate read walk the primary key over
-- every row delivered so far (both backends alike, growing through the window).
-- Parameters: created_at (and delivered_at), number of rows.
INSERT INTO ${table} (idempotency_key, type, payload, headers, status, attempt_count, created_at, delivered_at)
SELECT 'bench-history-' || g, 'leasebox.bench', convert_to(rpad('{"seq":' || g || '}', 64), 'UTF8'), '{}',
       'DELIVERED', 1, ?::timestamptz, ?::timestamptz
FROM generate_series(1, ?::bigint) AS g
