-- Makes the fence sequence's next value greater than the floor, never moving it back, in one atomic
-- step: MariaDB's SETVAL(seq, n) moves an ascending sequence only forward (next value n + 1) and
-- returns NULL when the sequence was already past n. Parameters: floor.
SELECT SETVAL(${table}_lease_fence_seq, ?)
