-- Gives a bench table the history a long-lived outbox has: DELIVERED rows older than the backlog,
-- in one statement. With them (and ANALYZE), the table's statistics say what production statistics
-- say, that few rows are eligible. Before V5 the claim and candidate queries needed them to be served
-- from the claim-candidate index (statistics taken right after the fill, saying every row is eligible,
-- had both walk the primary key over every row delivered so far); since V5 their plan does not depend
-- on statistics, and the history is what a long-lived outbox looks like.
-- Parameters: payload bytes, created_at (and delivered_at), number of rows.
INSERT INTO ${table} (idempotency_key, type, payload, headers, status, attempt_count, created_at, delivered_at)
SELECT 'bench-history-' || g, 'leasebox.bench', convert_to(rpad('{"seq":' || g || '}', ?::integer), 'UTF8'), '{}',
       'DELIVERED', 1, ?::timestamptz, ?::timestamptz
FROM generate_series(1, ?::bigint) AS g
