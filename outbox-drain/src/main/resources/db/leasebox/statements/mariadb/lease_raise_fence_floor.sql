-- Makes the fence sequence's next value greater than the floor, never moving it back, in one atomic
-- step: MariaDB's SETVAL(seq, n) moves an ascending sequence only forward (next value n + 1) and
-- returns NULL when the sequence was already past n (and n, unchanged, when n is the last value handed
-- out: the result alone does not tell whether it moved; lease_fence_next.sql does). Parameters: floor.
SELECT SETVAL(${table}_lease_fence_seq, ?)
