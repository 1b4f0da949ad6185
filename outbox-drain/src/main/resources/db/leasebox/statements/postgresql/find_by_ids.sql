-- Parameter: bigint[] of ids.
SELECT * FROM ${table} WHERE id = ANY (?::bigint[])
