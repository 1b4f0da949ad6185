SELECT * FROM ${table} WHERE id = ?
