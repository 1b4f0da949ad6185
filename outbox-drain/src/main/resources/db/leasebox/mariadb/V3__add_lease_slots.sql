-- Partition leases (MariaDB): see the PostgreSQL script for what each object is for.
-- Placeholders: ${table}, ${table_name}, ${slot_count} (1..65536, default 256).
-- The slot is the first 32 bits of md5(partition key, else id) as an unsigned number, modulo the
-- slot count: the same function as PostgreSQL's script and dev.leasebox.jdbc.LeaseSlots.slotOf.
-- MariaDB does not let a stored generated column read an AUTO_INCREMENT column, so the column is
-- virtual (computed when read). The slot statements of partition leases are PostgreSQL's only for
-- now; the lease table and fence sequence below serve JdbcLeaseManager on MariaDB.
-- Every statement can run again after an interrupted apply (MariaDB commits each DDL statement on its
-- own); the script counts as applied only when all of its objects, and the slot rows, exist.
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS lease_slot INT AS (
    CAST(CONV(SUBSTRING(MD5(COALESCE(partition_key, CAST(id AS CHAR))), 1, 8), 16, 10) AS UNSIGNED) % ${slot_count}
) VIRTUAL;

CREATE INDEX IF NOT EXISTS ${table_name}_key_order ON ${table} (partition_key, id);

CREATE TABLE IF NOT EXISTS ${table}_lease_slots (
    slot             INT         NOT NULL PRIMARY KEY,
    fence_high_water BIGINT      NOT NULL DEFAULT 0,
    holder           VARCHAR(1000),
    granted_at       DATETIME(6)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- IGNORE skips the slots already there; a slot number is an INT, so nothing can be truncated.
INSERT IGNORE INTO ${table}_lease_slots (slot) SELECT seq FROM seq_0_to_65535 WHERE seq < ${slot_count};

CREATE TABLE IF NOT EXISTS ${table}_workers (
    owner        VARCHAR(700) NOT NULL PRIMARY KEY,
    heartbeat_at DATETIME(6)  NOT NULL,
    expires_at   DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Leases held in the database itself (JdbcLeaseManager): one row per leased key, fences from the
-- sequence; rows are never deleted (release only expires them), so a key's fences strictly grow.
CREATE TABLE IF NOT EXISTS ${table}_leases (
    lease_key  VARCHAR(700) NOT NULL PRIMARY KEY,
    owner      VARCHAR(1000) NOT NULL,
    fence      BIGINT       NOT NULL,
    expires_at DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE SEQUENCE IF NOT EXISTS ${table}_lease_fence_seq START WITH 1 INCREMENT BY 1 CACHE 0;
