-- Leasebox outbox table as a pre-claim (selection-only) drain needs it (MariaDB 10.6+).
-- Placeholders (Flyway-compatible): ${table} is the validated, optionally database-qualified table name;
-- ${table_name} is its unqualified part, used for the names of constraints and indexes.
-- Instants are DATETIME(6) in UTC: Leasebox binds and reads them as UTC and judges expiry with
-- UTC_TIMESTAMP(6), so neither the server's nor the session's time zone matters. The table is
-- utf8mb4 with a binary collation: idempotency and partition keys compare byte for byte.
-- headers holds a flat JSON object of string values ({"name":"value"}), written and read by Leasebox.
CREATE TABLE ${table} (
    id                 BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    idempotency_key    VARCHAR(700)  NOT NULL,
    partition_key      VARCHAR(700),
    type               VARCHAR(1000) NOT NULL,
    payload            LONGBLOB      NOT NULL,
    headers            MEDIUMTEXT    NOT NULL DEFAULT '{}',
    status             VARCHAR(32)   NOT NULL DEFAULT 'PENDING',
    attempt_count      INT           NOT NULL DEFAULT 0,
    next_attempt_at    DATETIME(6),
    created_at         DATETIME(6)   NOT NULL,
    delivered_at       DATETIME(6),
    last_error         MEDIUMTEXT,
    dead_letter_reason MEDIUMTEXT,
    CONSTRAINT ${table_name}_idempotency_key_unique UNIQUE (idempotency_key),
    CONSTRAINT ${table_name}_status_known CHECK (status IN
        ('PENDING', 'DELIVERED', 'DEFERRED', 'FAILED', 'RETRYABLE_FAILURE', 'DEAD_LETTERED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
