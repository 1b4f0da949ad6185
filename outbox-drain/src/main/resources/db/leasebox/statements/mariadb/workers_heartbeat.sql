-- A worker's heartbeat: upserts the caller's row. Followed by workers_forget.sql and
-- workers_live.sql (MariaDB has no data-modifying CTEs to do all three in one statement).
-- Parameters: owner, heartbeat_at, expires_at (UTC).
INSERT INTO ${table}_workers (owner, heartbeat_at, expires_at)
VALUES (?, ?, ?)
ON DUPLICATE KEY UPDATE heartbeat_at = VALUES(heartbeat_at), expires_at = VALUES(expires_at)
