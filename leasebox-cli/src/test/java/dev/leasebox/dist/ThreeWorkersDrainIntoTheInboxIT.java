package dev.leasebox.dist;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.cli.LeaseboxMain;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * End to end, as users run it: three {@code leasebox worker} processes on real PostgreSQL drain 5,000
 * entries into the {@code jdbc-inbox} provider through each backend — the database itself, a
 * redis-server the test starts, a ZooKeeper server and three Hazelcast CP members each in a process
 * of its own ({@code leasebox zookeeper-server}, {@code leasebox hazelcast-member}).
 *
 * <p>The entries are enqueued once all three workers have started, so that each has its share to take: a
 * worker that started first would otherwise drain all 5,000 before a slow JVM joined. Until then one row under
 * a live claim of the test's keeps the workers, which exit when idle, from exiting; it is deleted after the
 * enqueue.
 */
class ThreeWorkersDrainIntoTheInboxIT {

    private static final int ENTRIES = 5_000;
    private static final Pattern STARTED = Pattern.compile("started \\d+ loops");
    private static final Duration WORKERS_FINISH_WITHIN = Duration.ofMinutes(3);

    private HikariDataSource admin;
    private String schema;
    private String url;
    private final WorkerFleet fleet = new WorkerFleet();

    @BeforeEach
    void freshOutbox() {
        admin = PostgreSqlTestServer.dataSource(1);
        schema = PostgreSqlTestServer.newSchema(admin);
        url = PostgreSqlTestServer.jdbcUrlFor(schema);
        assertThat(LeaseboxMain.run("schema", "--apply", "--jdbc-url", url)).isZero();
    }

    @AfterEach
    void cleanUp() {
        fleet.close();
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    @Test
    void throughTheDatabaseBackend() throws SQLException {
        drainWithThreeWorkers(Coordinators.database());
    }

    @Test
    void throughRedis() throws SQLException {
        drainWithThreeWorkers(Coordinators.redis(fleet, schema));
    }

    @Test
    void throughZooKeeperInItsOwnProcess() throws SQLException {
        drainWithThreeWorkers(Coordinators.zooKeeper(fleet));
    }

    @Test
    void throughThreeHazelcastMembersInTheirOwnProcesses() throws SQLException {
        List<String> args = new ArrayList<>(Coordinators.hazelcast(fleet, schema));
        args.addAll(List.of("--lease-ttl", "5s"));
        drainWithThreeWorkers(args);
    }

    private void drainWithThreeWorkers(List<String> backendArgs) throws SQLException {
        holdOneRow();
        List<ManagedProcess> workers = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            List<String> args = new ArrayList<>(List.of("worker", "--jdbc-url", url, "--provider", "jdbc-inbox:" + url,
                    "--owner", "worker-" + i, "--batch", "50", "--exit-when-idle"));
            if (!backendArgs.contains("--lease-ttl")) {
                args.addAll(List.of("--lease-ttl", "10s"));
            }
            args.addAll(backendArgs);
            workers.add(fleet.start("worker-" + i, args));
        }
        enqueueOnceAllStarted(workers);
        List<Integer> exitCodes = fleet.awaitExit(workers, WORKERS_FINISH_WITHIN);
        for (int i = 0; i < workers.size(); i++) {
            assertThat(exitCodes.get(i)).as("worker-%d exit code; log:%n%s", i + 1, workers.get(i).logTail()).isZero();
        }
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            assertThat(count(s, "select count(*) from leasebox_outbox where status = 'DELIVERED'")).isEqualTo(ENTRIES);
            assertThat(count(s, "select count(*) from leasebox_outbox where status in ('DELIVERED','DEAD_LETTERED') "
                    + "and claim_token is not null")).as("terminal rows still carrying a claim token").isZero();
            assertThat(count(s, "select count(*) from leasebox_inbox")).as("idempotency keys in the inbox").isEqualTo(ENTRIES);
            assertThat(count(s, "select count(*) from leasebox_outbox o left join leasebox_inbox i "
                    + "on i.idempotency_key = o.idempotency_key where i.idempotency_key is null")).isZero();
            assertThat(count(s, "select count(*) from leasebox_inbox where deliveries < 1")).isZero();
            assertThat(count(s, "select count(distinct claim_owner) from leasebox_outbox")).isZero();
        }
        long workersThatDelivered = workers.stream().filter(w -> w.logTail().matches("(?s).*stopped: delivered [1-9].*")).count();
        assertThat(workersThatDelivered).as("workers that delivered something").isGreaterThanOrEqualTo(2);
    }

    /** A row under a live claim of the test's: while it stands, workers that exit when idle do not exit. */
    private void holdOneRow() throws SQLException {
        assertThat(LeaseboxMain.run("enqueue", "--jdbc-url", url, "--count", "1", "--type", "hold")).isZero();
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            assertThat(s.executeUpdate("update leasebox_outbox set claim_owner = 'test-hold', claimed_at = now(), "
                    + "claim_expires_at = now() + interval '1 hour', claim_token = 1, fence_high_water = 1, "
                    + "claim_attempt_count = 1 where type = 'hold'")).isOne();
        }
    }

    /** Once every worker has started its claim loops: the entries enqueued, then the held row deleted. */
    private void enqueueOnceAllStarted(List<ManagedProcess> workers) throws SQLException {
        for (int i = 0; i < workers.size(); i++) {
            ManagedProcess worker = workers.get(i);
            String name = "worker-" + (i + 1);
            await(name + " started its claim loops").atMost(WORKERS_FINISH_WITHIN).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (!worker.isAlive()) {
                            throw new IllegalStateException(name + " exited before the entries were enqueued; log:\n"
                                    + worker.logTail());
                        }
                        return STARTED.matcher(Files.readString(worker.log())).find();
                    });
        }
        assertThat(LeaseboxMain.run("enqueue", "--jdbc-url", url, "--count", Integer.toString(ENTRIES),
                "--partition-keys", "50")).isZero();
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            assertThat(s.executeUpdate("delete from leasebox_outbox where type = 'hold'")).isOne();
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
