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
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End to end, as users run it: three {@code leasebox worker} processes on real PostgreSQL drain 5,000
 * entries into the {@code jdbc-inbox} provider through each backend — the database itself, a
 * redis-server the test starts, a ZooKeeper server and three Hazelcast CP members each in a process
 * of its own ({@code leasebox zookeeper-server}, {@code leasebox hazelcast-member}).
 */
class ThreeWorkersDrainIntoTheInboxIT {

    private static final int ENTRIES = 5_000;
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
        assertThat(LeaseboxMain.run("enqueue", "--jdbc-url", url, "--count", Integer.toString(ENTRIES),
                "--partition-keys", "50")).isZero();
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

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
