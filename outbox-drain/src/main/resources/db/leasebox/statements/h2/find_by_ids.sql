-- Parameter: an array of ids.
SELECT * FROM ${table} WHERE id = ANY (?)
