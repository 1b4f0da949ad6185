-- The table's number of lease slots (V3 fills ${table}_lease_slots with one row per slot).
SELECT count(*), COALESCE(max(fence_high_water), 0) FROM ${table}_lease_slots
