-- Claims a batch in the caller's slots, in one statement. "held" keeps only the slots whose newest
-- recorded grant is the caller's (same fence) and share-locks them until this statement ends, so a
-- newer grant's registration (slot_register.sql) waits for it and every later claim under the older
-- grant finds nothing. "picked" chooses eligible, unclaimed (or claim-expired) rows of those slots,
-- oldest first, skipping rows other statements have locked. Each row's token is the grant's fence, or
-- the row's fence_high_water + 1 when that is larger (a retry under the same grant): strictly above
-- every earlier token of the row. The key_order placeholder below is empty, or (ordered mode)
-- the filter of slot_key_order.sql.
-- Time: every "now" parameter is NULL when the database's clock judges (the default: the statement
-- uses now()), or an instant when the store was given an explicit clock (tests); a written expiry is
-- that instant, or now() plus the lease duration in milliseconds.
-- Parameters: slots integer[], fences bigint[], three statuses, now (due), now (expiry), limit,
-- owner, claimed_at, claim_expires_at, lease ms.
WITH held AS (
    SELECT s.slot, s.fence_high_water AS fence
    FROM ${table}_lease_slots AS s
    JOIN unnest(?::integer[], ?::bigint[]) AS g(slot, fence) ON s.slot = g.slot AND s.fence_high_water = g.fence
    FOR SHARE OF s
), picked AS (
    SELECT o.id, h.fence
    FROM ${table} AS o
    JOIN held AS h ON o.lease_slot = h.slot
    WHERE o.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
      AND o.status IN (?, ?, ?)
      AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= COALESCE(?::timestamptz, now()))
      AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= COALESCE(?::timestamptz, now()))
      ${key_order}
    ORDER BY o.id
    LIMIT ?
    FOR UPDATE OF o SKIP LOCKED
)
UPDATE ${table} AS t
SET claim_owner         = ?,
    claimed_at          = COALESCE(?::timestamptz, now()),
    claim_expires_at    = COALESCE(?::timestamptz, now() + ?::bigint * interval '1 millisecond'),
    claim_token         = GREATEST(p.fence, t.fence_high_water + 1),
    fence_high_water    = GREATEST(p.fence, t.fence_high_water + 1),
    claim_attempt_count = t.claim_attempt_count + 1
FROM picked AS p
WHERE t.id = p.id
RETURNING t.*
