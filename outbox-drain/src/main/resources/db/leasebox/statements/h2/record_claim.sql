-- Records one externally granted lease as the row's claim, only when its token is strictly above the
-- row's fence high-water mark and the row is eligible. H2 is embedded (no network round trip), so
-- the store runs this once per grant in one JDBC call sequence.
-- Parameters: owner, claimed_at, claim_expires_at, token, token, id, token, three statuses, now, now.
SELECT * FROM FINAL TABLE (
    UPDATE ${table}
    SET claim_owner         = ?,
        claimed_at          = ?,
        claim_expires_at    = ?,
        claim_token         = ?,
        fence_high_water    = ?,
        claim_attempt_count = claim_attempt_count + 1
    WHERE id = ?
      AND ? > fence_high_water
      AND status IN (?, ?, ?)
      AND (next_attempt_at IS NULL OR next_attempt_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
      AND (claim_expires_at IS NULL OR claim_expires_at <= COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), CURRENT_TIMESTAMP))
)
