-- What `SchemaVersion` reads on MariaDB to tell which migration scripts are complete: MariaDB commits
-- each DDL statement on its own, so an interrupted apply can leave any prefix of a script behind, and a
-- script counts as applied only when every object it creates is there. One row per column (with its
-- collation), index and sequence of the outbox's tables.
-- Parameters: the database, then the seven names (the outbox table, _lease_slots, _workers, _leases,
-- _claim_styles, _claim_token_seq, _lease_fence_seq), then the database and the outbox table again.
SELECT 'column' AS kind, c.table_name AS owner, c.column_name AS name, c.collation_name AS detail
FROM information_schema.columns AS c
WHERE c.table_schema = ? AND c.table_name IN (?, ?, ?, ?, ?, ?, ?)
UNION ALL
SELECT DISTINCT 'index', s.table_name, s.index_name, NULL
FROM information_schema.statistics AS s
WHERE s.table_schema = ? AND s.table_name = ?
UNION ALL
SELECT 'table', t.table_name, t.table_type, t.table_collation
FROM information_schema.tables AS t
WHERE t.table_schema = ? AND t.table_name IN (?, ?, ?, ?, ?, ?, ?)
