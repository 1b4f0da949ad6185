-- Grants every free key of a batch, in one statement (atomic under auto-commit). A key is free when
-- it has no row yet (never leased) or its lease expired by the caller's "now" (a released lease
-- expired at 1970-01-01). A granted key gets a new fence from the sequence; RETURNING names exactly
-- the keys granted. Keys held by anyone, this owner included, are left untouched and absent.
--
-- Fences strictly grow per key: rows are never deleted (release only expires them), and a re-grant
-- writes GREATEST(new value, row's fence + 1), so neither a statement whose nextval was taken before
-- a concurrent grant of the same key nor a sequence reset by hand can write a fence that is not
-- above the key's last one. Sequence values taken for keys not granted are skipped (gaps are harmless).
--
-- Keys are processed in lease_key order, so concurrent batches (and renewals and releases, which lock
-- in the same order) never deadlock on each other's rows.
--
-- The shared advisory lock (class pg_class, object the fence sequence) is taken once, in the
-- one-time filter, before any nextval; lease_lock_fence_floor.sql takes it exclusively, so raising
-- the floor never interleaves with the nextvals of a grant. It is released when the statement's
-- transaction ends.
-- Time: "now" is NULL when the database's clock judges (the default: the statement uses now()), or an
-- instant when the manager was given an explicit clock (tests).
-- Parameters: owner, expires_at (NULL: now() + ttl), ttl ms, keys text[], now.
INSERT INTO ${table}_leases AS l (lease_key, owner, fence, expires_at)
SELECT r.lease_key, ?::text, nextval('${table}_lease_fence_seq'),
       COALESCE(?::timestamptz, now() + ?::bigint * interval '1 millisecond')
FROM unnest(?::text[]) AS r(lease_key)
WHERE (SELECT true
       FROM (SELECT pg_advisory_xact_lock_shared('pg_class'::regclass::oid::integer,
                                                 '${table}_lease_fence_seq'::regclass::oid::integer)) AS gate)
ORDER BY r.lease_key
ON CONFLICT (lease_key) DO UPDATE
SET owner      = EXCLUDED.owner,
    fence      = GREATEST(EXCLUDED.fence, l.fence + 1),
    expires_at = EXCLUDED.expires_at
WHERE l.expires_at <= COALESCE(?::timestamptz, now())
RETURNING l.lease_key, l.fence
