package dev.leasebox.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code leasebox redrive} and {@code leasebox purge} end to end against a database given by a subclass:
 * dead letters made by a failing provider are counted, redriven and then delivered by a worker; old
 * delivered rows are purged; bad input is one line and exit 2.
 */
abstract class OperationsCommandsScenarios {

    /** A JDBC URL whose database (or schema) no other test uses. */
    protected abstract String url();

    private String url;

    @BeforeEach
    void freshOutbox() {
        url = url();
        CliRun schema = CliRun.of("schema", "--apply", "--jdbc-url", url);
        assertThat(schema.exitCode()).as(schema.err()).isZero();
    }

    private void deadLetters(int count, String type) {
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", Integer.toString(count), "--type", type).exitCode()).isZero();
        CliRun worker = CliRun.of("worker", "--jdbc-url", url, "--backend", "database",
                "--provider", "http:http://127.0.0.1:9/nowhere", "--max-attempts", "1", "--exit-when-idle", "--owner", "failing");
        assertThat(worker.exitCode()).as(worker.err()).isEqualTo(3);
    }

    @Test
    void deadLettersAreCountedThenRedrivenThenDelivered() throws SQLException {
        deadLetters(6, "order");
        deadLetters(2, "invoice");
        long held = scalar("select min(id) from leasebox_outbox where type = 'order'");
        update("update leasebox_outbox set claim_owner = 'w9', claim_token = fence_high_water, claimed_at = ?, "
                + "claim_expires_at = ? where id = ?", at(Instant.now()), at(Instant.now().plus(Duration.ofMinutes(10))), held);

        CliRun dry = CliRun.of("redrive", "--jdbc-url", url, "--type", "order", "--dry-run");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out().strip()).isEqualTo("5 entries dead-lettered to redrive in leasebox_outbox; "
                + "1 entry under a live claim left alone (dry run: nothing changed)");
        assertThat(scalar("select count(*) from leasebox_outbox where status = 'DEAD_LETTERED'")).isEqualTo(8);

        CliRun redrive = CliRun.of("redrive", "--jdbc-url", url, "--type", "order", "--batch", "2");
        assertThat(redrive.exitCode()).as(redrive.err()).isZero();
        assertThat(redrive.out().strip()).isEqualTo("Redrove 5 entries dead-lettered in leasebox_outbox to PENDING; "
                + "1 entry under a live claim left alone");
        assertThat(scalar("select count(*) from leasebox_outbox where status = 'PENDING' and attempt_count = 0 "
                + "and last_error is null and dead_letter_reason is null")).isEqualTo(5);
        assertThat(scalar("select count(*) from leasebox_outbox where status = 'PENDING' and fence_high_water > 0")).isEqualTo(5);

        CliRun worker = CliRun.of("worker", "--jdbc-url", url, "--backend", "database", "--provider", "jdbc-inbox:" + url,
                "--exit-when-idle", "--owner", "w2");
        assertThat(worker.exitCode()).as(worker.err()).isZero();
        assertThat(worker.out()).contains("worker w2 stopped: delivered 5, failed attempts 0, dead-lettered 0");

        CliRun byId = CliRun.of("redrive", "--jdbc-url", url, "--ids", held + "," + (held + 1000));
        assertThat(byId.out().strip()).isEqualTo("Redrove 0 entries dead-lettered in leasebox_outbox to PENDING; "
                + "1 entry under a live claim left alone");
        CliRun rest = CliRun.of("redrive", "--jdbc-url", url, "--all");
        assertThat(rest.out().strip()).startsWith("Redrove 2 entries dead-lettered");
    }

    @Test
    void failedEntriesAreRedrivenOnlyWhenAsked() throws SQLException {
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "3", "--type", "order").exitCode()).isZero();
        update("update leasebox_outbox set status = 'FAILED', attempt_count = 3, last_error = 'bad', created_at = ?",
                at(Instant.now().minus(Duration.ofHours(3))));
        assertThat(CliRun.of("redrive", "--jdbc-url", url, "--older-than", "1h").out())
                .startsWith("Redrove 0 entries dead-lettered in");
        assertThat(CliRun.of("redrive", "--jdbc-url", url, "--older-than", "1h", "--include-failed", "--dry-run").out())
                .startsWith("3 entries dead-lettered or failed to redrive in");
        assertThat(CliRun.of("redrive", "--jdbc-url", url, "--older-than", "4h", "--include-failed").out())
                .startsWith("Redrove 0 entries");
        assertThat(CliRun.of("redrive", "--jdbc-url", url, "--older-than", "1h", "--include-failed").out())
                .startsWith("Redrove 3 entries dead-lettered or failed in leasebox_outbox to PENDING");
        assertThat(scalar("select count(*) from leasebox_outbox where status = 'PENDING'")).isEqualTo(3);
    }

    @Test
    void purgeDeletesOldTerminalRowsAndADryRunChangesNothing() throws SQLException {
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "30").exitCode()).isZero();
        Instant old = Instant.now().minus(Duration.ofDays(8));
        update("update leasebox_outbox set status = 'DELIVERED', delivered_at = ?, created_at = ? where id <= "
                + "(select min(id) + 19 from leasebox_outbox)", at(old), at(old));
        update("update leasebox_outbox set status = 'DEAD_LETTERED', created_at = ? where status = 'PENDING' and id <= "
                + "(select min(id) + 24 from leasebox_outbox)", at(old));

        CliRun dry = CliRun.of("purge", "--jdbc-url", url, "--older-than", "7d", "--dry-run");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out().strip()).isEqualTo("20 rows to purge from leasebox_outbox (delivered, older than 7d) "
                + "(dry run: nothing changed)");
        assertThat(scalar("select count(*) from leasebox_outbox")).isEqualTo(30);

        CliRun purge = CliRun.of("purge", "--jdbc-url", url, "--older-than", "7d", "--batch", "7");
        assertThat(purge.exitCode()).as(purge.err()).isZero();
        assertThat(purge.out().strip()).isEqualTo("Purged 20 rows from leasebox_outbox (delivered, older than 7d)");
        assertThat(purge.err()).contains("purge: 20 / 20");
        assertThat(scalar("select count(*) from leasebox_outbox")).isEqualTo(10);

        CliRun both = CliRun.of("purge", "--jdbc-url", url, "--older-than", "1d", "--status", "Delivered,DEAD_LETTERED");
        assertThat(both.out().strip()).isEqualTo("Purged 5 rows from leasebox_outbox (delivered, dead-lettered, older than 1d)");
        assertThat(scalar("select count(*) from leasebox_outbox where status = 'PENDING'")).isEqualTo(5);
    }

    @Test
    void purgeSaysWhyItKeepsTheRowWithTheHighestFence() throws SQLException {
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "3").exitCode()).isZero();
        Instant old = Instant.now().minus(Duration.ofDays(8));
        update("update leasebox_outbox set status = 'DELIVERED', delivered_at = ?, created_at = ?, fence_high_water = id",
                at(old), at(old));
        CliRun purge = CliRun.of("purge", "--jdbc-url", url, "--older-than", "7d");
        assertThat(purge.exitCode()).as(purge.err()).isZero();
        assertThat(purge.out().strip()).isEqualTo("Purged 2 rows from leasebox_outbox (delivered, older than 7d); 1 row kept: "
                + "the table's highest fence stays on record, so a coordinator that lost its data restarts its fences above it");
        assertThat(scalar("select count(*) from leasebox_outbox")).isEqualTo(1);
    }

    private static OffsetDateTime at(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    private void update(String sql, Object... params) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.executeUpdate();
        }
    }

    private long scalar(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void statusJsonCountsWhatTheOperationsLeave() {
        deadLetters(3, "order");
        CliRun status = CliRun.of("status", "--jdbc-url", url, "--json");
        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat(status.out()).contains("\"DEAD_LETTERED\":3").contains("\"total\":3")
                .contains("\"oldest_pending_age_seconds\":null").contains("\"live_claims\":0")
                .containsPattern("\"recent_dead_letters\":\\[\\{\"id\":\\d+,\"idempotency_key\":\"[^\"]+\",\"type\":\"order\","
                        + "\"created_at\":\"20\\d\\d-[^\"]+Z\",\"attempts\":1,")
                .doesNotContain("slots_by_holder");
        CliRun text = CliRun.of("status", "--jdbc-url", url);
        assertThat(text.out()).as("each dead letter says what it is, when it was written, and why it was given up")
                .containsPattern("#\\d+ \\S+ \\(type order, written 20\\d\\d-\\S+Z\\) after 1 attempt: \\S.*127\\.0\\.0\\.1:9");
        assertThat(CliRun.of("redrive", "--jdbc-url", url, "--all").exitCode()).isZero();
        assertThat(CliRun.of("status", "--jdbc-url", url, "--json").out()).contains("\"PENDING\":3")
                .containsPattern("\"oldest_pending_age_seconds\":\\d+,").contains("\"recent_dead_letters\":[]");
    }

    @Test
    void applyListsWhatItWillDoADryRunChangesNothingAndTheDropStatementsRemoveEverything() throws SQLException {
        String fresh = "dry_" + Long.toHexString(System.nanoTime());
        CliRun dry = CliRun.of("schema", "--apply", "--dry-run", "--jdbc-url", url, "--table", fresh);
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("Outbox table " + fresh + " does not exist yet; --apply would apply:")
                .contains("  V1__create_leasebox_outbox.sql").contains("  V6__keys_compare_as_bytes.sql")
                .contains("  V8__count_takeovers.sql")
                .contains("CREATE TABLE " + fresh + " (").endsWith("Dry run: nothing was changed.\n");
        assertThat(exists(fresh)).as("the dry run created nothing").isFalse();
        assertThat(CliRun.of("schema", "--apply", "--dry-run", "--jdbc-url", url).out()).contains("is up to date");

        CliRun drop = CliRun.of("schema", "--drop", "--dialect", dialect(), "--table", "leasebox_outbox");
        assertThat(drop.exitCode()).as(drop.err()).isZero();
        List<String> statements = drop.out().lines().filter(line -> !line.startsWith("--")).toList();
        assertThat(statements).hasSize(dialect().equals("postgresql") ? 8 : 7).allMatch(line -> line.startsWith("DROP "));
        try (Connection c = DriverManager.getConnection(url); var statement = c.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql.substring(0, sql.length() - 1));
            }
        }
        for (String table : List.of("leasebox_outbox", "leasebox_outbox_workers", "leasebox_outbox_leases",
                "leasebox_outbox_lease_slots", "leasebox_outbox_claim_styles")) {
            assertThat(exists(table)).as(table + " dropped").isFalse();
        }
        CliRun again = CliRun.of("schema", "--apply", "--jdbc-url", url);
        assertThat(again.exitCode()).as("V1, V2 and V7 create the sequences and the trigger function again, which the "
                + "drop removed: " + again.err()).isZero();
        assertThat(again.out()).contains("Outbox table leasebox_outbox does not exist yet; applying:");
    }

    private String dialect() {
        return url.startsWith("jdbc:h2:") ? "h2" : url.startsWith("jdbc:mariadb:") ? "mariadb" : "postgresql";
    }

    private boolean exists(String table) {
        try (Connection c = DriverManager.getConnection(url); var statement = c.createStatement()) {
            statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
