-- Adds claims a worker took over to the table's count (V8), on the guard row its heartbeat transaction has
-- locked. Parameters: the takeovers counted since the last addition that committed.
UPDATE ${table}_claim_styles SET taken_over = taken_over + ? WHERE owner = ''
