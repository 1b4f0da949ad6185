-- Second statement of raiseFenceFloor's transaction (after lease_lock_fence_floor.sql): moves the
-- fence sequence to the floor when its next value would not be above it; never moves it back.
-- Returns one row when it moved the sequence, none when the sequence was already past the floor.
-- Parameters: floor, floor, floor.
SELECT setval('${table}_lease_fence_seq', ?::bigint, true)
FROM ${table}_lease_fence_seq
WHERE (is_called AND last_value < ?::bigint)
   OR (NOT is_called AND last_value <= ?::bigint)
