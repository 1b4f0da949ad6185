-- Forgets members dead for over an hour. Parameters: now (UTC).
DELETE FROM ${table}_workers WHERE expires_at < ? - INTERVAL 1 HOUR
