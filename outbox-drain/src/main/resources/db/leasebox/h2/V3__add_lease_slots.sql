-- Partition leases (H2): see the PostgreSQL script for what each object is for.
-- Placeholders: ${table}, ${table_name}, ${slot_count} (1..65536, default 256).
-- The slot is the first 32 bits of md5(partition key, else id) as an unsigned number, modulo the
-- slot count: the same function as PostgreSQL's script and dev.leasebox.jdbc.LeaseSlots.slotOf.
ALTER TABLE ${table} ADD COLUMN lease_slot INTEGER GENERATED ALWAYS AS (
    CAST(MOD(MOD(CAST(CAST(SUBSTRING(HASH('MD5', COALESCE(partition_key, CAST(id AS VARCHAR))), 1, 4) AS INT) AS BIGINT)
        + 4294967296, 4294967296), ${slot_count}) AS INTEGER));

-- H2 has no partial indexes.
CREATE INDEX ${table}_slot_candidates ON ${table} (lease_slot, status, id);
CREATE INDEX ${table}_key_order ON ${table} (partition_key, id);

CREATE TABLE ${table}_lease_slots (
    slot             INTEGER PRIMARY KEY,
    fence_high_water BIGINT  NOT NULL DEFAULT 0,
    holder           VARCHAR(1000),
    granted_at       TIMESTAMP WITH TIME ZONE
);
INSERT INTO ${table}_lease_slots (slot) SELECT X FROM SYSTEM_RANGE(0, ${slot_count} - 1);

CREATE TABLE ${table}_workers (
    owner        VARCHAR(1000)            PRIMARY KEY,
    heartbeat_at TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at   TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE ${table}_leases (
    lease_key  VARCHAR(1000)            PRIMARY KEY,
    owner      VARCHAR(1000)            NOT NULL,
    fence      BIGINT                   NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE SEQUENCE ${table}_lease_fence_seq AS BIGINT START WITH 1;
