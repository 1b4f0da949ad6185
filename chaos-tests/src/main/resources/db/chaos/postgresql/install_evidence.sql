-- The harness's own evidence, in the run's schema only (never in Leasebox's migrations): what the
-- database and the downstream saw, independent of what the workers wrote in their histories.
-- Placeholders: ${table} (the qualified outbox), ${schema} (the run's schema).
--
-- chaos_audit: every committed change of an outbox row's status, claim_token, claim_owner,
-- claim_expires_at or fence_high_water, old and new values, with the database's clock_timestamp()
-- and the transaction id. Written in the changing transaction: a completion that committed is here
-- even if its worker died before its history line. Per row, seq follows commit order (the row lock
-- orders the updates of one row; the trigger runs while it is held).
CREATE TABLE ${schema}.chaos_audit (
    seq                  bigserial   PRIMARY KEY,
    entry_id             bigint      NOT NULL,
    txid                 bigint      NOT NULL,
    at                   timestamptz NOT NULL,
    old_status           text,
    new_status           text,
    old_claim_token      bigint,
    new_claim_token      bigint,
    old_claim_owner      text,
    new_claim_owner      text,
    old_claim_expires_at timestamptz,
    new_claim_expires_at timestamptz,
    old_fence_high_water bigint,
    new_fence_high_water bigint
);
CREATE FUNCTION ${schema}.chaos_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ${schema}.chaos_audit (entry_id, txid, at, old_status, new_status, old_claim_token, new_claim_token,
            old_claim_owner, new_claim_owner, old_claim_expires_at, new_claim_expires_at,
            old_fence_high_water, new_fence_high_water)
    VALUES (NEW.id, txid_current(), clock_timestamp(), OLD.status, NEW.status, OLD.claim_token, NEW.claim_token,
            OLD.claim_owner, NEW.claim_owner, OLD.claim_expires_at, NEW.claim_expires_at,
            OLD.fence_high_water, NEW.fence_high_water);
    RETURN NULL;
END
$$;
CREATE TRIGGER chaos_audit AFTER UPDATE ON ${table} FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status
          OR OLD.claim_token IS DISTINCT FROM NEW.claim_token
          OR OLD.claim_owner IS DISTINCT FROM NEW.claim_owner
          OR OLD.claim_expires_at IS DISTINCT FROM NEW.claim_expires_at
          OR OLD.fence_high_water IS DISTINCT FROM NEW.fence_high_water)
    EXECUTE FUNCTION ${schema}.chaos_audit_row();

-- chaos_deliveries: every delivery the jdbc-inbox provider received, not only the last fence. A
-- BEFORE INSERT row trigger sees each proposed row, repeats that end in ON CONFLICT DO UPDATE
-- included, with the fence as presented; it commits or rolls back with the delivery itself. The
-- worker is the connection's application_name up to its '@' (the harness sets
-- ApplicationName=<owner>@<schema>); the
-- time is the database's (the provider's own) clock.
CREATE TABLE ${schema}.chaos_deliveries (
    seq             bigserial   PRIMARY KEY,
    idempotency_key text        NOT NULL,
    entry_id        bigint      NOT NULL,
    fence           bigint,
    worker          text,
    txid            bigint      NOT NULL,
    received_at     timestamptz NOT NULL
);
CREATE FUNCTION ${schema}.chaos_delivery_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ${schema}.chaos_deliveries (idempotency_key, entry_id, fence, worker, txid, received_at)
    VALUES (NEW.idempotency_key, NEW.entry_id, NEW.last_fence, split_part(current_setting('application_name', true), '@', 1),
            txid_current(), clock_timestamp());
    RETURN NEW;
END
$$;
CREATE TRIGGER chaos_deliveries BEFORE INSERT ON ${schema}.leasebox_inbox FOR EACH ROW
    EXECUTE FUNCTION ${schema}.chaos_delivery_row();
