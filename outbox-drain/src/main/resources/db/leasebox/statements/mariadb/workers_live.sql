-- The members alive at "now". Parameters: now (UTC).
SELECT owner FROM ${table}_workers WHERE expires_at > ?
