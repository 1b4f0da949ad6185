-- Forgets registrations expired for over an hour (workers that died without leaving).
DELETE FROM ${table}_claim_styles WHERE owner <> '' AND expires_at < DATEADD(HOUR, -1, CURRENT_TIMESTAMP)
