-- Rows DELIVERED in a bench table, compared with the completions the workers were told were accepted;
-- the history rows the table started with (fill_history.sql) are not counted.
SELECT count(*) FROM ${table} WHERE status = 'DELIVERED' AND idempotency_key NOT LIKE 'bench-history-%'
