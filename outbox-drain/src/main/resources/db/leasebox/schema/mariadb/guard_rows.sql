-- V4's guard row of the claim-style registry (its last statement; an interrupted apply may not have
-- committed it).
SELECT COUNT(*) FROM ${table}_claim_styles WHERE owner = ''
