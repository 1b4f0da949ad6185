-- The live registrations other than the caller's, by the database's clock (UTC). Parameters: owner.
SELECT owner, claim_style, described, expires_at FROM ${table}_claim_styles
WHERE owner <> '' AND owner <> ? AND expires_at > UTC_TIMESTAMP(6)
ORDER BY owner
