-- Records a batch of externally granted leases as claims, in one statement. A grant is written only
-- when its token is strictly above the row's fence high-water mark (an equal token is refused: after
-- a coordinator's data loss a different grant can carry the same number) and the row is eligible at
-- "now". Refused grants are absent from RETURNING; the caller classifies them with one read.
-- Parameters: ids bigint[], owners text[], tokens bigint[], claimed_at text[], expires_at text[],
-- three statuses, now (due), now (expiry).
UPDATE ${table} AS t
SET claim_owner         = g.owner,
    claimed_at          = g.claimed_at::timestamptz,
    claim_expires_at    = g.expires_at::timestamptz,
    claim_token         = g.token,
    fence_high_water    = g.token,
    claim_attempt_count = t.claim_attempt_count + 1
FROM unnest(?::bigint[], ?::text[], ?::bigint[], ?::text[], ?::text[]) AS g(id, owner, token, claimed_at, expires_at)
WHERE t.id = g.id
  AND g.token > t.fence_high_water
  AND t.status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND t.status IN (?, ?, ?)
  AND (t.next_attempt_at IS NULL OR t.next_attempt_at <= ?)
  AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= ?)
RETURNING t.*
