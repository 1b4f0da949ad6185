package dev.leasebox.dist;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.cli.LeaseboxMain;
import dev.leasebox.jdbc.MariaDbTestServer;
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
 * End to end on the real MariaDB, as users run it: {@code leasebox schema --apply} and
 * {@code leasebox enqueue} on a fresh database, then three {@code leasebox worker} processes drain it
 * into the {@code jdbc-inbox} provider (in the same database) through the database backend and
 * through a redis-server the test starts. Every entry ends DELIVERED exactly once in the outbox, its
 * key is in the inbox, and no terminal row keeps a claim.
 */
class MariaDbWorkersIT {

    private static final int ENTRIES = 3_000;
    private static final Duration WORKERS_FINISH_WITHIN = Duration.ofMinutes(3);

    private HikariDataSource admin;
    private String database;
    private String url;
    private final WorkerFleet fleet = new WorkerFleet();

    @BeforeEach
    void freshOutbox() {
        admin = MariaDbTestServer.dataSource(1);
        database = MariaDbTestServer.newDatabase(admin);
        url = MariaDbTestServer.jdbcUrlFor(database);
        assertThat(LeaseboxMain.run("schema", "--apply", "--jdbc-url", url)).isZero();
        assertThat(LeaseboxMain.run("schema", "--apply", "--jdbc-url", url)).as("a second apply finds V4 applied").isZero();
        assertThat(LeaseboxMain.run("enqueue", "--jdbc-url", url, "--count", Integer.toString(ENTRIES),
                "--partition-keys", "50")).isZero();
    }

    @AfterEach
    void cleanUp() {
        fleet.close();
        MariaDbTestServer.dropDatabase(admin, database);
        admin.close();
    }

    @Test
    void threeWorkersThroughTheDatabaseBackend() throws SQLException {
        drainWithThreeWorkers(Coordinators.database());
    }

    @Test
    void threeWorkersThroughRedis() throws SQLException {
        drainWithThreeWorkers(Coordinators.redis(fleet, database));
    }

    private void drainWithThreeWorkers(List<String> backendArgs) throws SQLException {
        List<ManagedProcess> workers = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            List<String> args = new ArrayList<>(List.of("worker", "--jdbc-url", url, "--provider", "jdbc-inbox:" + url,
                    "--owner", "worker-" + i, "--batch", "50", "--exit-when-idle", "--lease-ttl", "10s"));
            args.addAll(backendArgs);
            workers.add(fleet.start("worker-" + i, args));
        }
        List<Integer> exitCodes = fleet.awaitExit(workers, WORKERS_FINISH_WITHIN);
        for (int i = 0; i < workers.size(); i++) {
            assertThat(exitCodes.get(i)).as("worker-%d exit code; log:%n%s", i + 1, workers.get(i).logTail()).isZero();
        }
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("USE " + database);
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
