-- Wake-ups at commit: after every INSERT statement into the outbox, whoever runs it (Leasebox's writer, the
-- Spring starter, plain SQL from another service), a NOTIFY tells listening drains to look at once instead of
-- at their next poll. PostgreSQL delivers a notification when the inserting transaction commits, and only
-- then, so drains look exactly when the rows become visible; a rolled-back insert notifies no one, and the
-- inserts of one transaction notify once (NOTIFY folds identical notifications of a transaction).
-- Placeholders: ${table}, ${table_name} as in V1.
--
-- The channel is named after the table, 'leasebox:<schema>.<table>' (its md5 after 'leasebox:' when that is
-- longer than 63 bytes), so two outbox tables do not wake each other's drains. A notification carries no
-- rows: it is a hint, and drains still claim through the table and still poll. Cost to writers: at commit,
-- a notifying transaction takes the database-wide lock of the notification queue, briefly; see
-- docs/performance.md. To stop the notifications without leaving this version (drains then poll, and
-- Leasebox writers wake drains in their own process and through the coordinator):
--   ALTER TABLE <table> DISABLE TRIGGER <table_name>_wake_up;   -- ENABLE TRIGGER to turn them back on
CREATE FUNCTION ${table}_wake_up() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    relation text := TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;
BEGIN
    IF octet_length('leasebox:' || relation) <= 63 THEN
        PERFORM pg_notify('leasebox:' || relation, '');
    ELSE
        PERFORM pg_notify('leasebox:' || md5(relation), '');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER ${table_name}_wake_up AFTER INSERT ON ${table}
    FOR EACH STATEMENT EXECUTE FUNCTION ${table}_wake_up();
