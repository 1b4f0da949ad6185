-- Rows not yet terminal: the run is drained when this is 0.
SELECT count(*) FROM ${table} WHERE status NOT IN ('DELIVERED', 'DEAD_LETTERED')
