-- The jdbc-inbox provider's downstream table: the idempotent-receiver pattern.
CREATE SEQUENCE IF NOT EXISTS leasebox_inbox_seq;
CREATE TABLE IF NOT EXISTS leasebox_inbox (
    idempotency_key varchar(200) PRIMARY KEY,
    entry_id bigint NOT NULL,
    partition_key varchar(200),
    deliveries integer NOT NULL,
    last_fence bigint,
    first_seq bigint NOT NULL
);
