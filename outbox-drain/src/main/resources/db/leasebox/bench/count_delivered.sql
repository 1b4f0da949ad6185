-- Rows DELIVERED in a bench table, compared with the completions the workers were told were accepted.
SELECT count(*) FROM ${table} WHERE status = 'DELIVERED'
