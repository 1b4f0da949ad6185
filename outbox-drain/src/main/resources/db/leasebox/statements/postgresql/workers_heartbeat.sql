-- A worker's heartbeat and the live members, in one statement: upsert the caller's row, forget rows
-- dead for over an hour, and list the members alive at "now" (the caller included: the upsert is not
-- visible to the statement's own snapshot, hence the UNION).
-- Parameters: owner, heartbeat_at, expires_at, now (forget before), now (alive at).
WITH beat AS (
    INSERT INTO ${table}_workers AS w (owner, heartbeat_at, expires_at)
    VALUES (?, ?, ?)
    ON CONFLICT (owner) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at, expires_at = EXCLUDED.expires_at
    RETURNING w.owner
), forgotten AS (
    DELETE FROM ${table}_workers WHERE expires_at < ?::timestamptz - interval '1 hour'
)
SELECT owner FROM ${table}_workers WHERE expires_at > ?
UNION
SELECT owner FROM beat
