package dev.leasebox.dist;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.cli.LeaseboxMain;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Partition leases end to end, on every backend: {@code leasebox worker --granularity partition
 * --ordered} processes drain a PostgreSQL outbox whose entries cycle over a few partition keys into the
 * {@code jdbc-inbox} provider, while workers join, die and leave:
 * <ol>
 *   <li>worker-1 and worker-2 start and share the slots;</li>
 *   <li>the inbox is locked, so every emission blocks with its claims held;</li>
 *   <li>worker-3 joins: the slots are rebalanced over three live workers;</li>
 *   <li>worker-1 is SIGKILLed mid-emission, holding claims and slot leases; the inbox is unlocked;</li>
 *   <li>its slots move to the two live workers once its leases expire; then worker-2 leaves
 *       gracefully (SIGTERM) and worker-3 holds every slot.</li>
 * </ol>
 * Then: every entry DELIVERED and in the inbox (nothing lost); for every partition key, the order of
 * first emissions (the inbox's first_seq) is the enqueue order (ids); every slot is held by exactly one
 * live worker at each stage; rows worker-1 held were reclaimed with a higher token.
 */
class PartitionedWorkersIT {

    private static final int ENTRIES = 3_000;
    private static final int KEYS = 30;
    private static final int SLOTS = 32;
    private static final Duration STAGE = Duration.ofSeconds(90);

    private HikariDataSource admin;
    private String schema;
    private String url;
    private final WorkerFleet fleet = new WorkerFleet();

    @BeforeEach
    void freshOutbox() {
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
        url = PostgreSqlTestServer.jdbcUrlFor(schema);
        assertThat(LeaseboxMain.run("schema", "--apply", "--jdbc-url", url, "--slots", Integer.toString(SLOTS))).isZero();
        assertThat(LeaseboxMain.run("enqueue", "--jdbc-url", url, "--count", Integer.toString(ENTRIES),
                "--partition-keys", Integer.toString(KEYS))).isZero();
    }

    @AfterEach
    void cleanUp() {
        fleet.close();
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    @Test
    void throughTheDatabaseBackend() throws Exception {
        drainWhileWorkersJoinDieAndLeave(Coordinators.database(), "lean");
    }

    @Test
    void throughTheDatabaseBackendWithRecordedClaims() throws Exception {
        drainWhileWorkersJoinDieAndLeave(Coordinators.database(), "recorded");
    }

    @Test
    void throughRedis() throws Exception {
        drainWhileWorkersJoinDieAndLeave(Coordinators.redis(fleet, schema), "lean");
    }

    @Test
    void throughZooKeeperWithRecordedClaims() throws Exception {
        drainWhileWorkersJoinDieAndLeave(Coordinators.zooKeeper(fleet), "recorded");
    }

    @Test
    void throughHazelcast() throws Exception {
        drainWhileWorkersJoinDieAndLeave(Coordinators.hazelcast(fleet, schema), "lean");
    }

    private ManagedProcess worker(int n, List<String> backendArgs, String claims) {
        List<String> args = new ArrayList<>(List.of("worker", "--jdbc-url", url, "--provider", "jdbc-inbox:" + url,
                "--owner", "worker-" + n, "--batch", "20", "--lease-ttl", "5s",
                "--granularity", "partition", "--slots", Integer.toString(SLOTS), "--ordered",
                "--claim-mode", claims));
        args.addAll(backendArgs);
        return fleet.start("worker-" + n, args);
    }

    private void drainWhileWorkersJoinDieAndLeave(List<String> backendArgs, String claims) throws Exception {
        boolean recorded = claims.equals("recorded");
        ManagedProcess w1 = worker(1, backendArgs, claims);
        ManagedProcess w2 = worker(2, backendArgs, claims);
        await("first deliveries").atMost(STAGE).ignoreExceptions().until(() -> count("select count(*) from leasebox_inbox") >= 100);

        try (Connection lock = admin.getConnection(); Statement s = lock.createStatement()) {
            lock.setAutoCommit(false);
            s.execute("SET search_path TO " + schema);
            // emissions block from here, claims held: however fast the machine, most entries are still to come
            s.execute("LOCK TABLE leasebox_inbox IN EXCLUSIVE MODE");
            awaitHolders(Set.of("worker-1", "worker-2"), w1, w2);
            ManagedProcess w3 = worker(3, backendArgs, claims);
            awaitHolders(Set.of("worker-1", "worker-2", "worker-3"), w1, w2, w3);
            // worker-1 is blocked mid-emission: recorded claims show on its rows; lean ones are its slots
            await("worker-1 holding claims").atMost(STAGE).until(() -> count(recorded
                    ? "select count(*) from leasebox_outbox where claim_owner = 'worker-1'"
                    : "select count(*) from leasebox_outbox_lease_slots where holder = 'worker-1'") > 0);
            long heldByW1 = count("select count(*) from leasebox_outbox where claim_owner = 'worker-1'");
            w1.kill();
            lock.commit();

            awaitHolders(Set.of("worker-2", "worker-3"), w2, w3);
            w2.terminate();
            // a JVM stopped by SIGTERM exits with 143 once its shutdown hooks (drain closed, slots released) are done
            assertThat(w2.awaitExit(Duration.ofSeconds(60))).as("worker-2 exit code after SIGTERM; log:%n%s", w2.logTail())
                    .isIn(0, 143);
            awaitHolders(Set.of("worker-3"), w3);

            await("every entry delivered").atMost(STAGE)
                    .until(() -> count("select count(*) from leasebox_outbox where status = 'DELIVERED'") == ENTRIES);
            w3.terminate();
            assertThat(w3.awaitExit(Duration.ofSeconds(60))).isIn(0, 143);

            if (recorded) {
                assertThat(heldByW1).isPositive();
                assertThat(count("select count(*) from leasebox_outbox where claim_attempt_count >= 2"))
                        .as("rows reclaimed after worker-1 was killed holding %d claims", heldByW1).isGreaterThanOrEqualTo(1);
            } else {
                assertThat(count("select count(*) from leasebox_outbox where claim_owner is not null or claim_attempt_count > 0"))
                        .as("lean claims write no claim columns").isZero();
            }
        }
        assertNothingLostAndEveryKeyInOrder();
    }

    /** Waits until the slots' recorded holders are exactly {@code live}, all of them, each slot with one. */
    private void awaitHolders(Set<String> live, ManagedProcess... workers) {
        // a slot never granted yet has no holder: keep polling (a null among the holders fails the assertion)
        await("slots held by exactly " + live).atMost(STAGE).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .untilAsserted(() -> {
            for (ManagedProcess w : workers) {
                assertThat(w.isAlive()).as("%s is alive; log:%n%s", w, w.logTail()).isTrue();
            }
            Map<Integer, String> holders = new HashMap<>();
            query("select slot, holder from leasebox_outbox_lease_slots", rs -> holders.put(rs.getInt(1), rs.getString(2)));
            assertThat(holders).hasSize(SLOTS);
            assertThat(holders.values()).doesNotContainNull();
            assertThat(new TreeSet<>(holders.values())).isEqualTo(new TreeSet<>(live));
            // and each live worker holds its share only: the coordinator's leases agree with the table
            Set<String> members = new TreeSet<>();
            query("select owner from leasebox_outbox_workers where expires_at > now()", rs -> members.add(rs.getString(1)));
            assertThat(members).isEqualTo(new TreeSet<>(live));
        });
    }

    private void assertNothingLostAndEveryKeyInOrder() throws SQLException {
        assertThat(count("select count(*) from leasebox_outbox where status = 'DELIVERED'")).isEqualTo(ENTRIES);
        assertThat(count("select count(*) from leasebox_outbox where claim_token is not null"))
                .as("terminal rows still carrying a claim token").isZero();
        assertThat(count("select count(*) from leasebox_outbox o left join leasebox_inbox i "
                + "on i.idempotency_key = o.idempotency_key where i.idempotency_key is null")).as("entries lost").isZero();
        // the ordering checker: per key, first emissions (first_seq) in enqueue (id) order
        Map<String, List<long[]>> byKey = new LinkedHashMap<>();
        query("select partition_key, entry_id, first_seq from leasebox_inbox order by partition_key, entry_id",
                rs -> byKey.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new long[] {rs.getLong(2), rs.getLong(3)}));
        assertThat(byKey).hasSize(KEYS);
        List<String> violations = new ArrayList<>();
        byKey.forEach((key, emissions) -> {
            for (int i = 1; i < emissions.size(); i++) {
                if (emissions.get(i)[1] < emissions.get(i - 1)[1]) {
                    violations.add(key + ": entry " + emissions.get(i)[0] + " first emitted before entry " + emissions.get(i - 1)[0]);
                }
            }
        });
        assertThat(violations).as("per-key order violations").isEmpty();
    }

    @FunctionalInterface
    private interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    private void query(String sql, RowReader reader) throws SQLException {
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            try (ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        }
    }

    private long count(String sql) throws SQLException {
        long[] n = new long[1];
        query(sql, rs -> n[0] = rs.getLong(1));
        return n[0];
    }
}
