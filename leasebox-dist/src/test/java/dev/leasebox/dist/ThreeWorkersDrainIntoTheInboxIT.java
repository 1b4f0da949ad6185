package dev.leasebox.dist;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.cli.LeaseboxMain;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.testkit.FreePorts;
import dev.leasebox.testkit.ManagedProcess;
import dev.leasebox.testkit.RequiredServer;
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
        drainWithThreeWorkers(List.of("--backend", "database"));
    }

    @Test
    void throughRedis() throws SQLException {
        int port = FreePorts.next();
        String redisServer = RequiredServer.binary("redis-server", "/usr/bin/redis-server")
                .orElseThrow(() -> RequiredServer.missing("redis-server", "PATH", "apt-get install redis-server")).toString();
        ManagedProcess redis = ManagedProcess.start("redis", List.of(redisServer, "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        try {
            redis.awaitListening(port, Duration.ofSeconds(20));
            drainWithThreeWorkers(List.of("--backend", "redis", "--redis", "redis://127.0.0.1:" + port, "--namespace", schema));
        } finally {
            redis.close();
        }
    }

    @Test
    void throughZooKeeperInItsOwnProcess() throws SQLException {
        int port = FreePorts.next();
        fleet.start("zookeeper", List.of("zookeeper-server", "--port", Integer.toString(port)))
                .awaitListening(port, Duration.ofSeconds(60));
        drainWithThreeWorkers(List.of("--backend", "zookeeper", "--zookeeper", "127.0.0.1:" + port,
                "--backend-option", "sessionTimeout=6s"));
    }

    @Test
    void throughThreeHazelcastMembersInTheirOwnProcesses() throws SQLException {
        List<Integer> ports = List.of(FreePorts.next(), FreePorts.next(), FreePorts.next());
        String members = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
        List<ManagedProcess> started = new ArrayList<>();
        for (int port : ports) {
            started.add(fleet.start("hazelcast-" + port, List.of("hazelcast-member", "--port", Integer.toString(port),
                    "--members", members, "--cluster-name", schema)));
        }
        for (int i = 0; i < ports.size(); i++) {
            started.get(i).awaitListening(ports.get(i), Duration.ofSeconds(90));
        }
        drainWithThreeWorkers(List.of("--backend", "hazelcast", "--hazelcast", members,
                "--backend-option", "clusterName=" + schema, "--backend-option", "sessionTtl=10s",
                "--backend-option", "heartbeat=1s", "--lease-ttl", "5s"));
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
