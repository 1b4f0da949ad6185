-- The fence sequence's next value (V3 creates it with CACHE 0, so this is exact), read without advancing
-- it: whether a floor is above what the sequence would hand out, i.e. whether it was behind.
SELECT next_not_cached_value FROM ${table}_lease_fence_seq
