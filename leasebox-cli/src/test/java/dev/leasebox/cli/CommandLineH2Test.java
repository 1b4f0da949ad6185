package dev.leasebox.cli;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands end to end on an in-process H2 database: schema, enqueue, a worker on the
 * {@code database} backend into the {@code jdbc-inbox} provider, status.
 */
class CommandLineH2Test {

    private final String url = "jdbc:h2:mem:cli-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @Test
    void schemaPrintsBothMigrationsForTheChosenTable() {
        CliRun run = CliRun.of("schema", "--dialect", "postgresql", "--table", "app.outbox");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("-- V1__create_leasebox_outbox.sql").contains("-- V2__add_claim_leases.sql")
                .contains("app.outbox");
        assertThat(statements(run.out())).as("statements carry the table, comments keep the placeholders they explain")
                .doesNotContain("${table}");
    }

    private static String statements(String script) {
        return String.join("\n", script.lines().filter(line -> !line.stripLeading().startsWith("--")).toList());
    }

    @Test
    void schemaPrintsTheMariaDbScriptsEveryStatementRerunnable() {
        CliRun run = CliRun.of("schema", "--dialect", "mariadb", "--table", "app.outbox");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("-- V1__create_leasebox_outbox.sql (db/leasebox/mariadb/")
                .contains("-- V6__keys_compare_as_bytes.sql (db/leasebox/mariadb/")
                .contains("ADD COLUMN IF NOT EXISTS claim_owner").contains("CREATE SEQUENCE IF NOT EXISTS app.outbox_lease_fence_seq")
                .contains("ALTER TABLE app.outbox CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin")
                .contains("-- V8__count_takeovers.sql (db/leasebox/mariadb/")
                .contains("ALTER TABLE app.outbox_claim_styles ADD COLUMN IF NOT EXISTS taken_over");
        assertThat(statements(run.out())).doesNotContain("${table}");
    }

    @Test
    void anInvalidTableNameIsRefused() {
        CliRun run = CliRun.of("schema", "--dialect", "h2", "--table", "outbox; drop table x");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).isEqualTo(1);
    }

    @Test
    void applyIsIdempotentAndExplicit() {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).out())
                .contains("Applied V1__create_leasebox_outbox.sql").contains("Applied V2__add_claim_leases.sql");
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).out()).contains("up to date");
    }

    @Test
    void aWorkerDrainsEverythingIntoTheInboxAndExitsWhenIdle() throws SQLException {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        CliRun enqueue = CliRun.of("enqueue", "--jdbc-url", url, "--count", "250", "--partition-keys", "5");
        assertThat(enqueue.exitCode()).isZero();
        assertThat(enqueue.out()).contains("Enqueued 250 entries");

        CliRun worker = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--provider", "jdbc-inbox:" + url,
                "--batch", "20", "--concurrency", "2", "--exit-when-idle", "--owner", "w1");
        assertThat(worker.exitCode()).as(worker.err()).isZero();
        assertThat(worker.out()).contains(", lease 30s").contains("worker w1 stopped: delivered 250, failed attempts 0, dead-lettered 0");

        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            assertThat(count(s, "select count(*) from leasebox_outbox where status = 'DELIVERED'")).isEqualTo(250);
            assertThat(count(s, "select count(*) from leasebox_outbox where claim_token is not null")).isZero();
            assertThat(count(s, "select count(*) from leasebox_inbox")).isEqualTo(250);
            assertThat(count(s, "select count(distinct partition_key) from leasebox_inbox")).isEqualTo(5);
            assertThat(count(s, "select min(last_fence) from leasebox_inbox")).isPositive();
        }

        CliRun status = CliRun.of("status", "--jdbc-url", url);
        assertThat(status.exitCode()).isZero();
        assertThat(status.out()).containsPattern("DELIVERED\\s+250").contains("(no claims)").contains("oldest pending: none")
                .doesNotContain("slot holder").doesNotContain("never granted");
    }

    @Test
    void aWorkerRefusesToStartBesideLiveWorkersWhoseClaimsItCannotExclude() throws SQLException {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        CliRun.of("enqueue", "--jdbc-url", url, "--count", "5");
        // a live lean worker (another node) on this table: it writes no claims, so a database-backend worker
        // beside it would emit the same rows at the same time
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.executeUpdate("insert into leasebox_outbox_claim_styles (owner, claim_style, described, started_at, expires_at) "
                    + "values ('lean-node-1', 'lean row redis redis://127.0.0.1:6390 namespace leasebox', "
                    + "'lean row claims through redis at redis://127.0.0.1:6390 (namespace leasebox)', "
                    + "current_timestamp, dateadd(minute, 5, current_timestamp))");
        }
        CliRun worker = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--provider", "noop",
                "--exit-when-idle", "--owner", "w1");
        assertThat(worker.exitCode()).isEqualTo(2);
        assertThat(worker.errLines()).as(worker.err()).isEqualTo(2); // the line and the --verbose hint
        assertThat(worker.err()).contains("w1").contains("recorded row claims through the database backend")
                .contains("lean-node-1").contains("lean row claims through redis");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            assertThat(count(s, "select count(*) from leasebox_outbox where status = 'PENDING' and claim_token is null"))
                    .as("nothing claimed").isEqualTo(5);
        }
    }

    @Test
    void aFailingProviderIsHeardAndItsDeadLettersCounted() {
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "40").exitCode()).isZero();
        CliRun worker = CliRun.of("worker", "--jdbc-url", url, "--backend", "database",
                "--provider", "http:http://127.0.0.1:9/nowhere", "--max-attempts", "1", "--exit-when-idle", "--owner", "w1");
        assertThat(worker.exitCode()).as("dead letters end an --exit-when-idle run with exit code 3: " + worker.err()).isEqualTo(3);
        assertThat(worker.out()).contains("worker w1 stopped: delivered 0, failed attempts 40, dead-lettered 40");
        assertThat(worker.err()).contains("provider failed").contains("127.0.0.1:9/nowhere")
                .contains("worker w1 dead-lettered 40 entries; 'leasebox status' lists them");
        assertThat(worker.errLines()).as("rate-limited, not one line per entry: " + worker.err()).isLessThanOrEqualTo(4);
    }

    @Test
    void statusShowsPendingEntriesAndTheirAge() {
        CliRun.of("schema", "--apply", "--jdbc-url", url);
        CliRun.of("enqueue", "--jdbc-url", url, "--count", "3");
        CliRun status = CliRun.of("status", "--jdbc-url", url);
        assertThat(status.out()).containsPattern("PENDING\\s+3").contains("oldest pending: ").doesNotContain("oldest pending: none");
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
