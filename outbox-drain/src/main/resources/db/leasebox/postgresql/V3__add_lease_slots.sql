-- Partition leases (`--lease-granularity partition`): workers lease slots, not rows.
-- Placeholders: ${table}, ${table_name} as in V1/V2, and ${slot_count}, the number of lease slots
-- (1..65536, default 256), fixed here: changing it later means a new migration that redefines
-- lease_slot and refills ${table}_lease_slots.
--
-- An entry's slot is a stable hash of its partition key (of its id when it has none): the first 32
-- bits of md5(key) as an unsigned number, modulo the slot count. It is computed by the database when
-- the row is inserted (a stored generated column), so every writer agrees, whatever its language;
-- dev.leasebox.jdbc.LeaseSlots.slotOf is the same function in Java. Adding a stored generated column
-- rewrites the table under an ACCESS EXCLUSIVE lock: apply this in a maintenance window on a big
-- outbox, or after draining and archiving its terminal rows.
ALTER TABLE ${table}
    ADD COLUMN lease_slot integer GENERATED ALWAYS AS (
        mod(('x' || substr(md5(COALESCE(partition_key, id::text)), 1, 8))::bit(32)::bigint, ${slot_count})::integer
    ) STORED;

-- Serves the slot-claim query: the eligible rows of the claimer's slots, oldest first.
CREATE INDEX ${table_name}_slot_candidates ON ${table} (lease_slot, id)
    WHERE status IN ('PENDING', 'DEFERRED', 'RETRYABLE_FAILURE');

-- Serves ordered mode's "is an earlier entry of this key still open?" probe.
CREATE INDEX ${table_name}_key_order ON ${table} (partition_key, id)
    WHERE partition_key IS NOT NULL AND status NOT IN ('DELIVERED', 'DEAD_LETTERED');

-- One row per slot. fence_high_water is the highest slot-lease fence that ever claimed in the slot
-- (never lowered); a grant at or below it is refused, exactly as rows refuse stale claim tokens.
-- holder/granted_at are for operators (`leasebox status`), never for decisions.
CREATE TABLE ${table}_lease_slots (
    slot             integer     PRIMARY KEY,
    fence_high_water bigint      NOT NULL DEFAULT 0,
    holder           text,
    granted_at       timestamptz
);
INSERT INTO ${table}_lease_slots (slot) SELECT generate_series(0, ${slot_count} - 1);

-- Worker membership, for every backend: a worker heartbeats its row; a row past expires_at is a
-- dead worker. Membership only spreads the slots; mutual exclusion is the slot leases' job.
CREATE TABLE ${table}_workers (
    owner        text        PRIMARY KEY,
    heartbeat_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);

-- Leases held in the database itself, for the `database` backend in partition mode: one row per
-- leased key, fences from the sequence.
CREATE TABLE ${table}_leases (
    lease_key  text        PRIMARY KEY,
    owner      text        NOT NULL,
    fence      bigint      NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE SEQUENCE ${table}_lease_fence_seq AS bigint START WITH 1;
