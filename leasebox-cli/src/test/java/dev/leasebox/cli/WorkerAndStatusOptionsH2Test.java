package dev.leasebox.cli;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The worker's backoff options, status --json and --watch, and what /ready answers, on H2 in process. */
class WorkerAndStatusOptionsH2Test {

    private final String url = "jdbc:h2:mem:opts-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    private static void refused(CliRun run, String message) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message).doesNotContain("\tat ");
        // the line alone; a malformed option also points to the command's --help; never a trace hint for bad input
        assertThat(run.err()).doesNotContain("--verbose");
        assertThat(run.errLines()).as(run.err()).isEqualTo(run.err().contains("(see: leasebox ") ? 2 : 1);
    }

    @Test
    void badBackoffAndRetentionSettingsNameTheFlag() {
        String[] worker = {"worker", "--jdbc-url", url, "--backend", "database"};
        refused(run(worker, "--backoff-multiplier", "0.5"), "leasebox worker: --backoff-multiplier must be between 1 and 100, was 0.5");
        refused(run(worker, "--backoff-jitter", "1.5"),
                "leasebox worker: --backoff-jitter must be between 0 and 1 (a fraction of each delay), was 1.5");
        refused(run(worker, "--backoff-initial", "0s"), "leasebox worker: --backoff-initial must be at least 1ms, was 0s");
        refused(run(worker, "--backoff-initial", "1m", "--backoff-max", "30s"),
                "leasebox worker: --backoff-max 30s is below --backoff-initial 1m: make it at least the initial delay");
        refused(run(worker, "--retain-delivered", "0s"), "leasebox worker: --retain-delivered must be positive, e.g. 7d, was 0s");
        refused(run(worker, "--retain-delivered", "7d", "--retention-interval", "10ms"),
                "leasebox worker: --retention-interval must be at least 1s, was 10ms");
        refused(run(worker, "--backoff-multiplier", "fast"), "--backoff-multiplier must be a number, was 'fast'");
        refused(CliRun.of("status", "--jdbc-url", url, "--watch", "10ms"),
                "leasebox status: --watch 10ms is too short: use at least 100ms, e.g. --watch 2s");
    }

    private static CliRun run(String[] base, String... more) {
        String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return CliRun.of(all);
    }

    @Test
    void theBackoffSettingsReachTheDrain() throws SQLException {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "4").exitCode()).isZero();
        Instant before = Instant.now();
        CliRun worker = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--provider", "http:http://127.0.0.1:9/x",
                "--max-attempts", "5", "--backoff-initial", "1h", "--backoff-multiplier", "3", "--backoff-max", "10h",
                "--backoff-jitter", "0", "--exit-when-idle", "--owner", "w1");
        assertThat(worker.exitCode()).as(worker.err()).isZero();
        assertThat(worker.out()).contains("failed attempts 4, dead-lettered 0");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select next_attempt_at from leasebox_outbox where status = 'RETRYABLE_FAILURE'")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
                Instant next = rs.getTimestamp(1).toInstant();
                // no jitter: exactly the first ceiling (1h) after the failure
                assertThat(next).isBetween(before.plus(Duration.ofHours(1)), Instant.now().plus(Duration.ofHours(1)));
            }
            assertThat(rows).isEqualTo(4);
        }
    }

    @Test
    void wakeUpsAreOnUnlessTurnedOff() {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        CliRun woken = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--provider", "log", "--exit-when-idle");
        assertThat(woken.exitCode()).as(woken.err()).isZero();
        assertThat(woken.out() + woken.err()).contains("; woken by writers in this process");
        CliRun polling = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--provider", "log", "--exit-when-idle",
                "--wake-ups", "false");
        assertThat(polling.exitCode()).as(polling.err()).isZero();
        assertThat(polling.out() + polling.err()).contains("; wake-ups off");
    }

    @Test
    void statusJsonHasTheDocumentedFieldsAndNoSlotsOutsidePartitionMode() {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "3").exitCode()).isZero();
        CliRun status = CliRun.of("status", "--jdbc-url", url, "--json");
        assertThat(status.exitCode()).as(status.err()).isZero();
        String json = status.out().strip();
        assertThat(json.lines()).hasSize(1);
        assertThat(json).startsWith("{\"schema\":\"leasebox.status/1\",\"table\":\"leasebox_outbox\",\"observed_at\":\"")
                .contains("\"counts\":{\"PENDING\":3,\"DELIVERED\":0,\"DEFERRED\":0,\"FAILED\":0,\"RETRYABLE_FAILURE\":0,"
                        + "\"DEAD_LETTERED\":0},\"total\":3,\"oldest_pending_created_at\":\"")
                .containsPattern("\"oldest_pending_age_seconds\":\\d+,\"live_claims\":0,\"claims_by_owner\":\\[\\],"
                        + "\"recent_dead_letters\":\\[\\]}$")
                .doesNotContain("slots_by_holder");
    }

    @Test
    void statusJsonListsSlotHoldersInPartitionMode() throws SQLException {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url, "--slots", "4").exitCode()).isZero();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.executeUpdate("update leasebox_outbox_lease_slots set holder = 'w1', granted_at = current_timestamp where slot < 3");
        }
        String json = CliRun.of("status", "--jdbc-url", url, "--json").out();
        assertThat(json).contains("\"slots_by_holder\":[{\"holder\":null,\"slots\":1,\"alive\":false,\"last_granted_at\":null},"
                + "{\"holder\":\"w1\",\"slots\":3,\"alive\":false,\"last_granted_at\":\"");
        assertThat(CliRun.of("status", "--jdbc-url", url).out()).contains("slot holder (partition leases)");
    }

    @Test
    void statusWatchRefreshesUntilInterrupted() throws Exception {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        StringWriter out = new StringWriter();
        CommandLine commandLine = LeaseboxMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        AtomicInteger exit = new AtomicInteger(-1);
        Thread watcher = new Thread(() -> exit.set(commandLine.execute("status", "--jdbc-url", url, "--json", "--watch", "200ms")));
        watcher.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> out.toString().lines().count() >= 1);
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "2").exitCode()).isZero();
        await().atMost(Duration.ofSeconds(20)).until(() -> out.toString().contains("\"total\":2"));
        watcher.interrupt();
        watcher.join(10_000);
        assertThat(watcher.isAlive()).isFalse();
        assertThat(exit.get()).isZero();
        assertThat(out.toString().lines()).allSatisfy(line -> assertThat(line).startsWith("{\"schema\":\"leasebox.status/1\""));
        assertThat(out.toString()).contains("\"total\":0");
    }

    @Test
    void readyAnswers503WithTheReasonAnd200WhenAllIsThere() throws Exception {
        try (HikariDataSource ds = JdbcDataSources.pooled(url, "", "", 2);
             PrometheusEndpoint endpoint = new PrometheusEndpoint("127.0.0.1", 0)) {
            TableName table = TableName.DEFAULT;
            int nobody = LoopbackPorts.free();
            Readiness withCoordinator = new Readiness(ds, table, "zookeeper",
                    Readiness.addresses("zookeeper", "127.0.0.1:" + nobody + "/leasebox"));
            Readiness database = new Readiness(ds, table, "database", List.of());
            endpoint.probe("/ready", withCoordinator::problem);
            endpoint.probe("/ready-db", database::problem);
            endpoint.probe("/health", Optional::empty);

            assertThat(get(endpoint, "/health")).isEqualTo("200 ok");
            assertThat(get(endpoint, "/ready-db")).isEqualTo("503 the outbox table leasebox_outbox is at schema V0, this worker "
                    + "knows V" + LeaseboxSchema.LATEST_VERSION + ": run leasebox schema --apply or your migration tool");
            new LeaseboxSchema(DatabaseKind.H2, table).apply(ds, 1, 2);
            assertThat(get(endpoint, "/ready-db")).startsWith("503 the outbox table leasebox_outbox is at schema V2,");
            new LeaseboxSchema(DatabaseKind.H2, table).apply(ds, 3, LeaseboxSchema.LATEST_VERSION);
            assertThat(get(endpoint, "/ready-db")).isEqualTo("200 ok");
            assertThat(get(endpoint, "/ready")).isEqualTo("503 the zookeeper coordinator is unreachable at 127.0.0.1:" + nobody);
        }
        assertThat(Readiness.addresses("redis", "redis://u:p@cache.example:6380").get(0).getPort()).isEqualTo(6380);
        assertThat(Readiness.addresses("hazelcast", "h1,h2:5702")).extracting(a -> a.getHostString() + ":" + a.getPort())
                .containsExactly("h1:5701", "h2:5702");
    }

    private static String get(PrometheusEndpoint endpoint, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + endpoint.port() + path)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body().strip();
    }

    @Test
    void aFailingRetentionPassIsLoggedAndTheNextOneTriesAgain() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try (HikariDataSource ds = JdbcDataSources.pooled(url, "", "", 1)) {
            RetentionTask task = new RetentionTask(ds, TableName.DEFAULT, Duration.ofDays(7), Duration.ofMinutes(5),
                    new PrintWriter(out, true), new PrintWriter(err, true));
            task.run(); // no table yet: logged, not thrown
            task.run();
            assertThat(err.toString().lines()).hasSize(2).allSatisfy(line -> assertThat(line)
                    .startsWith("worker: retention purge of leasebox_outbox failed, will retry in 5m: "));
            new LeaseboxSchema(DatabaseKind.H2, TableName.DEFAULT).applyAll(ds);
            assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "3").exitCode()).isZero();
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.executeUpdate("update leasebox_outbox set status = 'DELIVERED', "
                        + "delivered_at = dateadd(day, -8, current_timestamp) where id < 3");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            task.run();
            assertThat(out.toString().strip())
                    .isEqualTo("worker: retention purged 2 rows from leasebox_outbox (delivered, older than 7d)");
            assertThat(err.toString().lines()).hasSize(2);
        }
    }
}
