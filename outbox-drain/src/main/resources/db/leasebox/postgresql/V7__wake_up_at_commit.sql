-- Wake-ups at commit: when a transaction that inserted into the outbox commits, whoever runs it (Leasebox's
-- writer, the Spring starter, plain SQL from another service), a NOTIFY tells listening drains to look at
-- once instead of at their next poll. PostgreSQL delivers a notification when its transaction commits, and
-- only then, so drains look exactly when the rows become visible; a rolled-back insert notifies no one.
-- Placeholders: ${table}, ${table_name} as in V1.
--
-- The channel is named after the table, 'leasebox:<schema>.<table>' (its md5 after 'leasebox:' when that is
-- longer than 63 bytes), so two outbox tables do not wake each other's drains. A notification carries no
-- rows: it is a hint, and drains still claim through the table and still poll.
--
-- Cost to writers: a notifying transaction holds the database-wide lock of the notification queue from
-- just before its commit until the commit is flushed, so notifying transactions commit one at a time.
-- The trigger is therefore deferred to the commit, and a transaction notifies only if no other is
-- notifying for this table at that moment (a transaction-scoped advisory lock, tried, never waited for):
-- the others commit side by side, unserialised, and the drain woken by the one that notified runs again
-- at once after it found rows, or polls 100 ms later. Figures: docs/performance.md. To stop the
-- notifications without leaving this version (drains then poll, and Leasebox writers wake drains in their
-- own process and through the coordinator):
--   ALTER TABLE <table> DISABLE TRIGGER <table_name>_wake_up;   -- ENABLE TRIGGER to turn them back on
CREATE FUNCTION ${table}_wake_up() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    relation text := TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;
BEGIN
    IF pg_try_advisory_xact_lock(hashtext('leasebox:wake-up'), hashtext(relation)) THEN
        IF octet_length('leasebox:' || relation) <= 63 THEN
            PERFORM pg_notify('leasebox:' || relation, '');
        ELSE
            PERFORM pg_notify('leasebox:' || md5(relation), '');
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER ${table_name}_wake_up AFTER INSERT ON ${table}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${table}_wake_up();
