-- The jdbc-inbox provider's downstream table: the idempotent-receiver pattern (MariaDB). The NO PAD
-- binary collation compares keys byte for byte: 'k' and 'k ' are two keys, as on PostgreSQL.
CREATE SEQUENCE IF NOT EXISTS leasebox_inbox_seq;
CREATE TABLE IF NOT EXISTS leasebox_inbox (
    idempotency_key VARCHAR(700) NOT NULL PRIMARY KEY,
    entry_id BIGINT NOT NULL,
    partition_key VARCHAR(700),
    deliveries INT NOT NULL,
    last_fence BIGINT,
    first_seq BIGINT NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
