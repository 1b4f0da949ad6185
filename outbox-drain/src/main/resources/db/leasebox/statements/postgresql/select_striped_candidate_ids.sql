-- The leased claim path's candidate query when the worker knows its stripe (CandidateStripe: the
-- rows whose id mod count is its index). The window is the oldest eligible rows, as in
-- select_eligible_ids.sql and served by the same claim-candidate index; of it, only what the sample
-- can use comes back: the oldest `own rows` of the worker's own stripe, the lapsed claims (preferred
-- by everyone, for failover), and the oldest `filler` rows (taken when the own stripe is short, so a
-- stripe whose worker died or lags is drained by the others once it fills the window). Both counts
-- run over one window in id order, which the limited index scan already delivers: no sort (0.5 ms
-- for an 800-row window here, against 4 ms with a partitioned row_number and its two sorts).
-- Parameters: stripe count, stripe index (twice), three statuses, now (due), now (claim expiry),
-- window, own rows, filler.
SELECT id, lapsed, own FROM (
    SELECT id,
           CASE WHEN claim_expires_at IS NULL THEN FALSE ELSE TRUE END AS lapsed,
           CASE WHEN mod(id, ?) = ? THEN TRUE ELSE FALSE END AS own,
           row_number() OVER oldest_first AS position,
           count(*) FILTER (WHERE mod(id, ?) = ?) OVER oldest_first AS stripe_position
    FROM (SELECT id, claim_expires_at FROM ${table}
          WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE')
            AND status IN (?, ?, ?)
            AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
            AND (claim_expires_at IS NULL OR claim_expires_at <= ?)
          ORDER BY id
          LIMIT ?) oldest
    WINDOW oldest_first AS (ORDER BY id ROWS UNBOUNDED PRECEDING)
) candidate_window
WHERE (own AND stripe_position <= ?) OR lapsed OR position <= ?
ORDER BY id
