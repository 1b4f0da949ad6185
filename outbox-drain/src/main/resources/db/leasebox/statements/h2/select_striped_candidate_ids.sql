-- The leased claim path's candidate query with a stripe (see the PostgreSQL statement).
-- H2 takes no frame clause with ROW_NUMBER, hence no named window; ids are distinct, so the
-- default RANGE frame of the running count is the ROWS frame.
-- Parameters: stripe count, stripe index (twice), three statuses, now (due), now (claim expiry),
-- window, own rows, filler.
SELECT id, lapsed, own FROM (
    SELECT id,
           CASE WHEN claim_expires_at IS NULL THEN FALSE ELSE TRUE END AS lapsed,
           CASE WHEN MOD(id, ?) = ? THEN TRUE ELSE FALSE END AS own,
           ROW_NUMBER() OVER (ORDER BY id) AS position,
           COUNT(*) FILTER (WHERE MOD(id, ?) = ?) OVER (ORDER BY id) AS stripe_position
    FROM (SELECT id, claim_expires_at FROM ${table}
          WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
            AND status IN (?, ?, ?)
            AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
            AND (claim_expires_at IS NULL OR claim_expires_at <= ?)
          ORDER BY id
          LIMIT ?) oldest
) candidate_window
WHERE (own AND stripe_position <= ?) OR lapsed OR position <= ?
ORDER BY id
