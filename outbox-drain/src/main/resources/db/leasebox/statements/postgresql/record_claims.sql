-- Records a batch of externally granted leases as claims, in one statement. A grant is written only
-- when its token is strictly above the row's fence high-water mark (an equal token is refused: after
-- a coordinator's data loss a different grant can carry the same number) and the row is eligible at
-- "now". Refused grants are absent from RETURNING; the caller classifies them with one read.
-- Plan: the rows are found by primary key only, so the statement touches the batch's rows and no
-- others whatever the table's statistics say. The row's own conditions sit in one CASE on purpose:
-- the planner can then neither estimate them from statistics nor serve them from the partial
-- claim-candidate index, and the ids are given once more as "t.id = ANY (ids)" for a primary-key
-- scan. Written as plain predicates, they let a stale or missing estimate ("hardly any eligible
-- rows": a fresh table, or statistics taken before a burst) pick a plan that scans every eligible
-- row once per grant: 100 grants over a 40,000-row backlog took 1-2 s instead of 2 ms
-- (PostgreSqlBatchPlansIT holds every batched statement to it).
-- Parameters: ids bigint[], owners text[], tokens bigint[], claimed_at and expires_at bigint[] (microseconds
-- since the epoch, so that the driver sends every array in binary),
-- three statuses, now (due), now (expiry), ids bigint[] again.
UPDATE ${table} AS t
SET claim_owner         = g.owner,
    claimed_at          = timestamptz 'epoch' + g.claimed_at * interval '1 microsecond',
    claim_expires_at    = timestamptz 'epoch' + g.expires_at * interval '1 microsecond',
    claim_token         = g.token,
    fence_high_water    = g.token,
    claim_attempt_count = t.claim_attempt_count + 1
FROM unnest(?::bigint[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[]) AS g(id, owner, token, claimed_at, expires_at)
WHERE t.id = g.id
  AND g.token > t.fence_high_water
  AND CASE WHEN t.status IN (?, ?, ?)
             AND t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
             AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= COALESCE(?::timestamptz, now()))
             AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= COALESCE(?::timestamptz, now()))
           THEN TRUE ELSE FALSE END
  AND t.id = ANY (?::bigint[])
RETURNING t.*
