-- The `database` claim backend, step 2 of one READ COMMITTED transaction (after a candidate read with
-- select_eligible_ids.sql): locks those candidates that are still eligible, oldest first, skipping
-- rows other transactions hold (FOR UPDATE SKIP LOCKED, MariaDB 10.6+), so concurrent workers take
-- different rows instead of waiting, and no row is claimed twice. The ids go through the primary
-- key, so only candidate rows are locked. ${ids} is one "?" per candidate. claim_token is the locked row's:
-- not NULL means the claim about to be written takes the row over from a claim that expired unfinished
-- (counted as a takeover, decision 0040).
-- Parameters: the candidate ids, three statuses, now (due), now (claim expiry), limit.
SELECT id, claim_token FROM ${table}
WHERE id IN (${ids})
  AND status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
  AND status IN (?, ?, ?)
  AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(?, UTC_TIMESTAMP(6)))
  AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(?, UTC_TIMESTAMP(6)))
ORDER BY id
LIMIT ?
FOR UPDATE SKIP LOCKED
