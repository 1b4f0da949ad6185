package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.Granularity;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three drains built through the library's entry point, {@code Leasebox.drain(dataSource)}, race over one
 * MariaDB outbox: claiming in the database itself, leasing rows from one shared lease manager, and
 * leasing slots (partition leases, ordered per key) from the table's own lease table or from a shared
 * lease manager. Every entry is emitted exactly once (no lease expires here), ends DELIVERED with its
 * claim cleared, and more than one drain does the work; with ordering, each key's entries in id order.
 */
class MariaDbLeaseboxDrainIT {

    private static final int ENTRIES = 3_000;

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(12);

    private static final Duration ROW_LEASE = Duration.ofSeconds(30);
    /** Long enough that no lease expires on a loaded machine, short enough (a tick is a third) that shares settle early. */
    private static final Duration SLOT_LEASE = Duration.ofSeconds(6);

    private TableName table;
    private final Map<String, List<Long>> emittedKeys = new ConcurrentHashMap<>();

    @BeforeEach
    void freshOutbox() {
        table = TestTables.fresh(DB.ds(), DatabaseKind.MARIADB, DB.name());
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        for (int i = 0; i < ENTRIES; i++) {
            writer.enqueue(DB.ds(), OutboxMessage.of("order-placed", ("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .withPartitionKey("key-" + (i % 40)));
        }
    }

    @Test
    void threeDrainsClaimingInTheDatabase() throws Exception {
        drainWithThree(null);
    }

    @Test
    void threeDrainsLeasingRowsFromOneLeaseManager() throws Exception {
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC())) {
            drainWithThree(leases);
        }
    }

    @Test
    void threeOrderedDrainsLeasingSlotsInTheDatabase() throws Exception {
        threeOrderedPartitionDrains(null);
    }

    @Test
    void threeOrderedDrainsLeasingSlotsFromOneLeaseManager() throws Exception {
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC())) {
            threeOrderedPartitionDrains(leases);
        }
    }

    /**
     * Partition leases, ordered per key, lean claims (partition mode's default). The drains start once
     * each holds slots (their keepers tick from build()), so that all three take part however fast the
     * machine; then each key's entries must have been emitted in id order.
     */
    private void threeOrderedPartitionDrains(LeaseManager leases) throws Exception {
        drainWithThree(leases, SLOT_LEASE, b -> b.granularity(Granularity.PARTITION).ordered(true),
                () -> await("every drain holding slots").atMost(Duration.ofSeconds(60))
                        .until(() -> count(table + "_lease_slots", "holder LIKE 'drain-%'", "count(DISTINCT holder)") == 3));
        assertThat(emittedKeys.values()).as("each key's entries emitted in id order")
                .allSatisfy(ids -> assertThat(ids).isSorted());
    }

    private void drainWithThree(LeaseManager leases) throws Exception {
        drainWithThree(leases, ROW_LEASE, UnaryOperator.identity(), () -> { });
    }

    private void drainWithThree(LeaseManager leases, Duration lease, UnaryOperator<Leasebox.Builder> granularity,
                                Runnable beforeStart) throws Exception {
        Map<Long, AtomicInteger> emissions = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> byDrain = new ConcurrentHashMap<>();
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(ENTRIES);
        List<Leasebox> drains = new ArrayList<>();
        try {
            for (int i = 1; i <= 3; i++) {
                String owner = "drain-" + i;
                OutboxProvider provider = envelope -> {
                    emissions.computeIfAbsent(envelope.entryId(), id -> new AtomicInteger()).incrementAndGet();
                    envelope.partitionKey().ifPresent(key -> emittedKeys.computeIfAbsent(key,
                            k -> Collections.synchronizedList(new ArrayList<>())).add(envelope.entryId()));
                    byDrain.computeIfAbsent(owner, o -> new AtomicInteger()).incrementAndGet();
                    if (delivered.add(envelope.entryId())) {
                        all.countDown();
                    }
                    return ProviderOutcome.delivered();
                };
                Leasebox.Builder builder = Leasebox.drain(DB.ds()).table(table).provider(provider)
                        .options(DrainOptions.builder().owner(owner).concurrency(2).batchSize(50)
                                .leaseDuration(lease).build());
                if (leases != null) {
                    builder.leases(leases);
                }
                drains.add(granularity.apply(builder).build());
            }
            beforeStart.run();
            drains.forEach(Leasebox::start);
            assertThat(all.await(120, TimeUnit.SECONDS)).as("all %d entries emitted; %d were", ENTRIES, delivered.size()).isTrue();
        } finally {
            drains.forEach(Leasebox::close);
        }
        assertThat(emissions).hasSize(ENTRIES);
        assertThat(emissions.values()).as("no entry emitted twice: no lease expired").allMatch(n -> n.get() == 1);
        assertThat(byDrain).as("drains that emitted something: %s", byDrain).hasSizeGreaterThanOrEqualTo(2);
        assertThat(count("status = 'DELIVERED'")).isEqualTo(ENTRIES);
        assertThat(count("claim_token IS NOT NULL OR claim_owner IS NOT NULL")).as("claims left on rows").isZero();
        assertThat(count("fence_high_water = 0")).as("rows completed without a recorded fence").isZero();
    }

    private long count(String where) throws SQLException {
        return count(table.toString(), where, "count(*)");
    }

    private long count(String from, String where, String what) throws SQLException {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT " + what + " FROM " + from + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
