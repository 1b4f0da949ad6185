-- First statement of raiseFenceFloor's transaction: takes the fence sequence's advisory lock
-- exclusively (class pg_class, object the sequence), waiting for grants in flight (they hold it shared,
-- see lease_acquire.sql) and holding new ones off until the transaction ends. PostgreSQL has no
-- compare-and-set on a sequence; this makes the read and the setval of lease_raise_fence_floor.sql
-- one atomic step with respect to every grant.
SELECT pg_advisory_xact_lock('pg_class'::regclass::oid::integer,
                             '${table}_lease_fence_seq'::regclass::oid::integer)
