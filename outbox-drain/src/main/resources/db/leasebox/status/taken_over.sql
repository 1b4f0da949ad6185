-- V8: the claims taken over from claims that expired unfinished, as the workers added them to the
-- claim-style registry's guard row. Fails on a table without V8.
SELECT taken_over FROM ${table}_claim_styles WHERE owner = ''
