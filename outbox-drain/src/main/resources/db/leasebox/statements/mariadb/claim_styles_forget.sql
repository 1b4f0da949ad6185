-- Forgets registrations expired for over an hour (workers that died without leaving).
DELETE FROM ${table}_claim_styles WHERE owner <> '' AND expires_at < UTC_TIMESTAMP(6) - INTERVAL 1 HOUR
