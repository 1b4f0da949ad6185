-- ${ids} is one "?" per id, bound in order.
SELECT * FROM ${table} WHERE id IN (${ids}) ORDER BY id
