package dev.leasebox.dist;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.jdbc.LeaseboxSchema;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.cli.LeaseboxMain;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real worker process on PostgreSQL with {@code --metrics-port} and {@code --retain-delivered}: /health
 * and /ready answer 200 beside /metrics, /ready turns 503 with its reason while the schema lacks V4, and
 * the background retention deletes old delivered rows, logging it, while the worker drains.
 */
class WorkerProbesAndRetentionIT {

    private static final Duration STAGE = Duration.ofSeconds(60);

    private HikariDataSource admin;
    private String schema;
    private String url;
    private final WorkerFleet fleet = new WorkerFleet();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void schema() {
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
        url = PostgreSqlTestServer.jdbcUrlFor(schema);
        assertThat(LeaseboxMain.run("schema", "--apply", "--jdbc-url", url)).isZero();
    }

    @AfterEach
    void drop() {
        fleet.close();
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    @Test
    void probesAnswerAndRetentionPurgesOldDeliveredRowsInTheBackground() throws Exception {
        assertThat(LeaseboxMain.run("enqueue", "--jdbc-url", url, "--count", "40")).isZero();
        Instant old = Instant.now().minus(Duration.ofDays(9));
        update("update leasebox_outbox set status = 'DELIVERED', delivered_at = ?, created_at = ? "
                + "where id <= (select min(id) + 24 from leasebox_outbox)", old, old);

        int port = LoopbackPorts.free();
        ManagedProcess worker = fleet.start("worker", List.of("worker", "--jdbc-url", url, "--backend", "database",
                "--provider", "noop", "--owner", "w1", "--metrics-port", Integer.toString(port),
                "--retain-delivered", "7d", "--retention-interval", "1s"));
        worker.awaitListening(port, STAGE);

        await("the 15 pending rows delivered and the 25 old ones purged").atMost(STAGE).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    assertThat(worker.isAlive()).as(worker.logTail()).isTrue();
                    assertThat(count("select count(*) from leasebox_outbox")).isEqualTo(15);
                    assertThat(count("select count(*) from leasebox_outbox where status = 'DELIVERED'")).isEqualTo(15);
                });
        await().atMost(STAGE).until(() -> Files.readString(worker.log())
                .contains("worker: retention purged 25 rows from leasebox_outbox (delivered, older than 7d)"));

        assertThat(get(port, "/health")).isEqualTo("200 ok");
        await("ready").atMost(STAGE).until(() -> get(port, "/ready").equals("200 ok"));
        assertThat(get(port, "/metrics")).startsWith("200 ").contains("leasebox_backlog");

        update("alter table leasebox_outbox_claim_styles rename to leasebox_outbox_claim_styles_away");
        assertThat(get(port, "/ready")).isEqualTo("503 the outbox table leasebox_outbox is at schema V3, this worker knows V"
                + LeaseboxSchema.LATEST_VERSION + ": "
                + "run leasebox schema --apply or your migration tool");
        assertThat(get(port, "/health")).isEqualTo("200 ok");
        update("alter table leasebox_outbox_claim_styles_away rename to leasebox_outbox_claim_styles");
        assertThat(get(port, "/ready")).isEqualTo("200 ok");

        worker.terminate();
        assertThat(worker.awaitExit(STAGE)).isIn(0, 143);
    }

    private String get(int port, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + (path.equals("/metrics") ? r.body() : r.body().strip());
    }

    private void update(String sql, Instant... times) throws SQLException {
        try (Connection c = admin.getConnection()) {
            c.createStatement().execute("set search_path to " + schema);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < times.length; i++) {
                    ps.setObject(i + 1, OffsetDateTime.ofInstant(times[i], ZoneOffset.UTC));
                }
                ps.executeUpdate();
            }
            c.createStatement().execute("set search_path to public");
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = admin.getConnection()) {
            c.createStatement().execute("set search_path to " + schema);
            try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            } finally {
                c.createStatement().execute("set search_path to public");
            }
        }
    }
}
