-- Grants every free key of a batch, in one statement (atomic under auto-commit). A key is free when
-- it has no row yet (never leased) or its lease expired by the caller's "now" (a released lease
-- expired at 1970-01-01). A granted key gets a new fence from the sequence; RETURNING names exactly
-- the keys granted. Keys held by anyone, this owner included, are left untouched and absent.
--
-- Fences strictly grow per key: rows are never deleted (release only expires them), and a row's
-- fence is replaced only by a larger one (l.fence < EXCLUDED.fence), so even a statement whose
-- nextval was taken before a concurrent grant of the same key cannot write a smaller fence.
-- Sequence values taken for keys that were not granted are skipped (gaps are harmless).
--
-- Keys are processed in lease_key order, so concurrent batches (and renewals and releases, which lock
-- in the same order) never deadlock on each other's rows.
--
-- The shared advisory lock (class pg_class, object the fence sequence) is taken once, in the
-- one-time filter, before any nextval; lease_lock_fence_floor.sql takes it exclusively, so raising
-- the floor never interleaves with the nextvals of a grant. It is released when the statement's
-- transaction ends.
-- Parameters: owner, expires_at, keys text[], now.
INSERT INTO ${table}_leases AS l (lease_key, owner, fence, expires_at)
SELECT r.lease_key, ?::text, nextval('${table}_lease_fence_seq'), ?::timestamptz
FROM unnest(?::text[]) AS r(lease_key)
WHERE (SELECT true
       FROM (SELECT pg_advisory_xact_lock_shared('pg_class'::regclass::oid::integer,
                                                 '${table}_lease_fence_seq'::regclass::oid::integer)) AS gate)
ORDER BY r.lease_key
ON CONFLICT (lease_key) DO UPDATE
SET owner      = EXCLUDED.owner,
    fence      = EXCLUDED.fence,
    expires_at = EXCLUDED.expires_at
WHERE l.expires_at <= ?::timestamptz
  AND l.fence < EXCLUDED.fence
RETURNING l.lease_key, l.fence
