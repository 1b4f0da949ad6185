-- First step of raiseFenceFloor on H2: takes the sequence's next value (a skipped fence, harmless),
-- which says whether the sequence must move. Runs under the same in-JVM lock as every lease statement.
SELECT NEXT VALUE FOR ${table}_lease_fence_seq
