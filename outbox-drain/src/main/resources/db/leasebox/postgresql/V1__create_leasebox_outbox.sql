-- Leasebox outbox table as a pre-claim (selection-only) drain needs it.
-- Placeholders (Flyway-compatible): ${table} is the validated, optionally schema-qualified table name;
-- ${table_name} is its unqualified part, used for the names of indexes.
-- headers holds a flat JSON object of string values ({"name":"value"}), written and read by Leasebox.
CREATE TABLE ${table} (
    id                 bigserial    PRIMARY KEY,
    idempotency_key    text         NOT NULL,
    partition_key      text,
    type               text         NOT NULL,
    payload            bytea        NOT NULL,
    headers            text         NOT NULL DEFAULT '{}',
    status             text         NOT NULL DEFAULT 'PENDING',
    attempt_count      integer      NOT NULL DEFAULT 0,
    next_attempt_at    timestamptz,
    created_at         timestamptz  NOT NULL,
    delivered_at       timestamptz,
    last_error         text,
    dead_letter_reason text,
    CONSTRAINT ${table_name}_idempotency_key_unique UNIQUE (idempotency_key),
    CONSTRAINT ${table_name}_status_known CHECK (status IN
        ('PENDING', 'DELIVERED', 'DEFERRED', 'FAILED', 'RETRYABLE_FAILURE', 'DEAD_LETTERED'))
);
