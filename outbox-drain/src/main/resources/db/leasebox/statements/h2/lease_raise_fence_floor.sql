-- Second step of raiseFenceFloor on H2, run only when lease_next_fence.sql returned a value at or below
-- the floor: the next fence becomes floor + 1.
-- Parameters: floor + 1.
ALTER SEQUENCE ${table}_lease_fence_seq RESTART WITH ?
