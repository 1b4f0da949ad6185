-- Fills the baseline table with rows of the same payload as fill.sql (and, for the history, DELIVERED).
-- Parameters: payload bytes, status, first sequence number, last sequence number.
INSERT INTO ${table} (status, payload)
SELECT ?, convert_to(rpad('{"seq":' || g || '}', ?::integer), 'UTF8')
FROM generate_series(?::bigint, ?::bigint) AS g
