SELECT status, count(*) AS entries FROM ${table} GROUP BY status ORDER BY status
