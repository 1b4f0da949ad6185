package dev.leasebox.jdbc;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.claim.partition.SlotGrant;
import dev.leasebox.jdbc.lease.JdbcSlotStore;
import dev.leasebox.jdbc.lease.JdbcWorkerGroup;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.testkit.RequiredServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The slot keeper against a real coordinator (Redis) and PostgreSQL: a slot lease lost on the coordinator
 * leaves the held set at the next renewal; the grant that replaces it is refused by the table when the
 * slot's recorded mark is above the coordinator's fences (another namespace or coordinator registered
 * there), the floor is raised above the mark, and the slot is held again under a higher fence whose claims
 * complete. Both claim modes.
 */
class PostgreSqlRedisSlotKeeperIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(6);

    private final String redis = RequiredServer.fromEnvironment("REDIS_URL")
            .or(() -> LoopbackPorts.isListening(6379) ? Optional.of("redis://127.0.0.1:6379") : Optional.empty())
            .orElseThrow(() -> RequiredServer.missing("Redis", "REDIS_URL", "apt-get install redis-server"));
    private final String namespace = "slot-keeper-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> closing = new ArrayList<>();
    private TableName table;
    private JdbcOutboxStore rows;
    private JdbcSlotStore slots;

    @BeforeEach
    void freshTable() {
        table = new TableName(DB.name(), "keeper_" + System.nanoTime());
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table, 4).applyAll(DB.ds());
        rows = JdbcOutboxStore.builder(DB.ds()).table(table).open();
        slots = JdbcSlotStore.open(DB.ds(), rows, rows.localClock());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        try (Jedis jedis = new Jedis(URI.create(redis))) {
            jedis.keys(namespace + ":*").forEach(jedis::del);
        }
    }

    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void aLostSlotIsDroppedAndItsRefusedReplacementIsGrantedAgainAboveTheSlotsMark(ClaimMode mode) throws Exception {
        LeaseManager manager = LeaseBackends.named("redis").open(new LeaseBackendSettings(redis, namespace, TTL, Map.of()));
        closing.add(manager);
        PartitionedOutboxClaimStore store = PartitionedOutboxClaimStore.open(rows, slots, manager,
                new JdbcWorkerGroup(DB.ds(), rows, rows.localClock()), "w", TTL, Duration.ofSeconds(10), false, mode,
                rows.localClock());
        closing.add(store);
        assertThat(store.keeper().heldSlots()).containsExactly(0, 1, 2, 3);
        OutboxEntry entry = rows.enqueue(OutboxMessage.of("t", new byte[] {1}).withIdempotencyKey("k-" + namespace)
                .withPartitionKey("key-" + namespace));
        int slot = LeaseSlots.slotOf("key-" + namespace, entry.id(), 4);
        long before = store.keeper().validGrant(slot).orElseThrow().fence();

        // another namespace or coordinator registered a grant far above this one's fences, and this slot's lease
        // was lost on the coordinator (expired, or deleted by an operator)
        long mark = before + 1_000_000;
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE " + table + "_lease_slots SET fence_high_water = " + mark + " WHERE slot = " + slot);
        }
        try (Jedis jedis = new Jedis(URI.create(redis))) {
            assertThat(jedis.del(namespace + ":lease:" + SlotGrant.leaseKey(slot))).isEqualTo(1);
        }

        store.keeper().tick(); // the renewal finds the lease gone; its replacement's fence is refused by the table
        assertThat(store.keeper().validGrant(slot)).as("lost, and the replacement refused").isEmpty();
        assertThat(store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w", 10, TTL))).isEmpty();

        store.keeper().tick(); // acquired again above the raised floor
        long after = store.keeper().validGrant(slot).orElseThrow().fence();
        assertThat(after).isGreaterThan(mark);
        List<OutboxClaim> claims = store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w", 10, TTL));
        assertThat(claims).extracting(OutboxClaim::entryId).containsExactly(entry.id());
        assertThat(claims.get(0).token()).isGreaterThan(mark);
        assertThat(store.complete(claims.get(0), new Completion.Delivered(EmissionResult.at(java.time.Instant.now())))
                .isCompleted()).isTrue();
    }
}
