package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.dialect.PostgreSqlDialect;
import dev.leasebox.jdbc.dialect.QueueScan;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.jdbc.store.QueueHead;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code database} backend's claim statement and the candidate read keep one plan whatever the
 * table's statistics and history (V5 and the statement shapes of claim_in_database.sql and
 * select_eligible_ids.sql), and claims are HOT updates.
 *
 * <p>Each state is explained with the plan a server-side prepared statement gets after a few runs
 * (generic) and with the one it gets before (custom): on a table never analyzed, after
 * {@code VACUUM ANALYZE}, and after 60 % of the rows were claimed and delivered through the store but
 * not vacuumed, with statistics from before (what autovacuum leaves during a drain), then after
 * {@code VACUUM ANALYZE} again. Before V5 these states gave a bitmap scan and a sort of every eligible
 * row (never analyzed), a hash join against a sequential scan of the table (analyzed, generic plan) and
 * a primary-key scan through every delivered row (60 % delivered, statistics from before).
 */
class PostgreSqlClaimPlanIT {

    private static final int BATCH = 100;
    private static final int ROWS = 20_000;
    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");

    private static HikariDataSource ds;
    private static String schema;

    @BeforeAll
    static void openDatabase() {
        ds = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(ds);
    }

    @AfterAll
    static void closeDatabase() {
        if (ds != null) {
            PostgreSqlTestServer.dropSchema(ds, schema);
            ds.close();
        }
    }

    @Test
    void theClaimAndTheCandidateReadKeepTheirPlanWithStatisticsAndManyFinalizedRows() throws Exception {
        TableName table = TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema);
        PostgreSqlTestServer.execute(ds, "ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
        fill(table, ROWS);
        PostgreSqlDialect dialect = (PostgreSqlDialect) SqlDialect.of(DatabaseKind.POSTGRESQL, table);

        assertLeanPlans(table, dialect, "never analyzed");

        PostgreSqlTestServer.execute(ds, "VACUUM ANALYZE " + table);
        assertLeanPlans(table, dialect, "after VACUUM ANALYZE");

        JdbcOutboxStore store = JdbcOutboxStore.builder(ds).table(table).open();
        int finalized = 0;
        while (finalized < ROWS * 6 / 10) {
            List<OutboxClaim> claims = store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("w1", BATCH, Duration.ofSeconds(30)));
            List<ClaimCompletion> done = new ArrayList<>();
            for (OutboxClaim claim : claims) {
                done.add(new ClaimCompletion(claim, new Completion.Delivered(EmissionResult.at(Instant.now()))));
            }
            store.completeAll(done);
            finalized += claims.size();
        }
        // The first scan after a bulk of finalizations visits each dead index entry's heap tuple once and
        // marks the entry dead; a drain does that a batch at a time. Bound what every scan after it costs.
        explain(table, dialect.claimSql(BATCH), CLAIM_ARGUMENTS, "force_custom_plan");
        assertLeanPlans(table, dialect, "with 60 % of the rows delivered, not vacuumed, statistics from before");
        assertReadsFromTheHeadSkipTheFinalizedRows(table, dialect);

        PostgreSqlTestServer.execute(ds, "VACUUM ANALYZE " + table);
        assertLeanPlans(table, dialect, "with 60 % of the rows delivered, after VACUUM ANALYZE");
    }

    @Test
    void claimsAreHotUpdatesAfterV5AndWereNotBefore() throws Exception {
        TableName v5 = TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema);
        TableName v4 = new TableName(schema, v5.table() + "_v4");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, v4).apply(ds, 1, 4);
        for (TableName table : List.of(v5, v4)) {
            fill(table, 5 * BATCH);
        }

        long[] after = claimFiveBatches(v5);
        long[] before = claimFiveBatches(v4);

        assertThat(after[0]).as("claims written").isEqualTo(5L * BATCH);
        assertThat(after[1]).as("of which HOT, after V5").isGreaterThanOrEqualTo(after[0] * 9 / 10);
        assertThat(before[0]).isEqualTo(5L * BATCH);
        assertThat(before[1]).as("of which HOT, V1 to V4 (the candidate index INCLUDEs claim_expires_at)").isZero();
    }

    /**
     * Claims five batches in one transaction: {updates, HOT updates} of that transaction. (Renewals write
     * claim_expires_at alone and are HOT-eligible too, but only once pruning has freed the room the claim took,
     * which needs the claim to be visible to every open snapshot: not something a test on a shared server can
     * count on.)
     */
    private static long[] claimFiveBatches(TableName table) throws SQLException {
        PostgreSqlDialect dialect = (PostgreSqlDialect) SqlDialect.of(DatabaseKind.POSTGRESQL, table);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                for (int i = 0; i < 5; i++) {
                    List<dev.leasebox.outbox.OutboxEntry> claimed = dialect.claimInDatabase(c, ClaimSelection.ELIGIBLE,
                            "w1", null, null, 30_000, QueueHead.FULL, BATCH).rows();
                    assertThat(claimed).hasSize(BATCH);
                }
                try (Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables"
                             + " WHERE relid = '" + table + "'::regclass")) {
                    rs.next();
                    return new long[] {rs.getLong(1), rs.getLong(2)};
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private static final String CLAIM_ARGUMENTS = claimArguments(QueueHead.FULL);
    private static final String CANDIDATE_ARGUMENTS = candidateArguments(QueueHead.FULL);

    private static String claimArguments(long from) {
        return "'w1', NULL, NULL, 30000, 'PENDING', 'DEFERRED', 'RETRYABLE_FAILURE', NULL, NULL, " + from;
    }

    private static String candidateArguments(long from) {
        return "'PENDING', 'DEFERRED', 'RETRYABLE_FAILURE', NULL, NULL, " + from + ", " + BATCH;
    }

    private static void assertLeanPlans(TableName table, PostgreSqlDialect dialect, String state) throws Exception {
        String index = table.table() + "_claim_queue";
        for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
            String claim = explain(table, dialect.claimSql(BATCH), CLAIM_ARGUMENTS, mode);
            assertThat(claim).as("claim, %s, %s:%n%s", state, mode, claim)
                    .contains("Index Scan using " + index).contains("LockRows").contains("Nested Loop")
                    .contains("Index Scan using " + table.table() + "_pkey on " + table.table() + " t")
                    .doesNotContain("Seq Scan").doesNotContain("Sort").doesNotContain("Hash").doesNotContain("Bitmap")
                    .startsWith("Update on " + table.table() + " t (actual rows=" + BATCH + " ");
            assertThat(buffers(claim, "Index Scan using " + index)).as("claim's candidate scan buffers, %s, %s:%n%s",
                    state, mode, claim).isLessThanOrEqualTo(6L * BATCH);

            String candidates = explain(table, dialect.sql("select_eligible_ids"), CANDIDATE_ARGUMENTS, mode);
            assertThat(candidates).as("candidate read, %s, %s:%n%s", state, mode, candidates)
                    .contains("Index Scan using " + index).doesNotContain("Seq Scan").doesNotContain("Sort")
                    .doesNotContain("Bitmap").contains("Limit (actual rows=" + BATCH + " ");
            assertThat(buffers(candidates, "Index Scan using " + index)).as("candidate read buffers, %s, %s:%n%s",
                    state, mode, candidates).isLessThanOrEqualTo(6L * BATCH);
        }
    }

    /**
     * With 60 % of the rows finalized and not vacuumed, a read that starts at the queue's head (QueueHead)
     * descends the index to it; a read from the beginning steps over every finalized row's entry.
     */
    private static void assertReadsFromTheHeadSkipTheFinalizedRows(TableName table, PostgreSqlDialect dialect)
            throws Exception {
        long head = PostgreSqlTestServer.queryLong(ds, "SELECT min(id) FROM " + table.qualified()
                + " WHERE status = 'PENDING'");
        String index = "Index Scan using " + table.table() + "_claim_queue";
        for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
            long claimFull = buffers(explain(table, dialect.claimSql(BATCH), claimArguments(QueueHead.FULL), mode), index);
            String claimPlan = explain(table, dialect.claimSql(BATCH), claimArguments(head), mode);
            long claimHead = buffers(claimPlan, index);
            long readFull = buffers(explain(table, dialect.sql("select_eligible_ids"), candidateArguments(QueueHead.FULL),
                    mode), index);
            String readPlan = explain(table, dialect.sql("select_eligible_ids"), candidateArguments(head), mode);
            long readHead = buffers(readPlan, index);
            assertThat(claimPlan).as("claim from the head, %s:%n%s", mode, claimPlan)
                    .startsWith("Update on " + table.table() + " t (actual rows=" + BATCH + " ").doesNotContain("Sort")
                    .doesNotContain("Seq Scan");
            assertThat(readPlan).as("candidate read from the head, %s:%n%s", mode, readPlan)
                    .contains("Limit (actual rows=" + BATCH + " ").doesNotContain("Sort").doesNotContain("Seq Scan");
            // from the head: about a heap page per row and a few index pages; from the beginning: the leaf pages of
            // every finalized row's entry on top (12,000 entries here, some 400 to a page)
            assertThat(claimHead).as("claim's scan buffers from the head (%d from the beginning), %s:%n%s", claimFull,
                    mode, claimPlan).isLessThanOrEqualTo(BATCH * 3L / 2).isLessThanOrEqualTo(claimFull - 20);
            assertThat(readHead).as("candidate read's scan buffers from the head (%d from the beginning), %s:%n%s",
                    readFull, mode, readPlan).isLessThanOrEqualTo(BATCH * 3L / 2).isLessThanOrEqualTo(readFull - 20);
        }
    }

    /** The shared buffers of the plan node on the line containing {@code node} (hit + read). */
    private static long buffers(String plan, String node) {
        String[] lines = plan.split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains(node)) {
                for (int j = i + 1; j < lines.length; j++) {
                    Matcher m = BUFFERS.matcher(lines[j]);
                    if (m.find()) {
                        return Long.parseLong(m.group(1)) + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
                    }
                }
            }
        }
        throw new AssertionError("no buffers for " + node + " in:\n" + plan);
    }

    /**
     * EXPLAIN (ANALYZE, BUFFERS) of {@code sql} prepared on the server and executed with {@code arguments}
     * under {@code plan_cache_mode = mode}, in a transaction rolled back.
     */
    private static String explain(TableName table, String sql, String arguments, String mode) throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.replaceAll("--[^\n]*", "").toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        StringBuilder plan = new StringBuilder();
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                st.execute("SET LOCAL plan_cache_mode = " + mode);
                for (String setting : QueueScan.SETTINGS) {
                    st.execute(setting);
                }
                st.execute("PREPARE probe AS " + numbered);
                try (ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE probe("
                        + arguments + ")")) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
            } finally {
                c.rollback();
                st.execute("DEALLOCATE probe");
                c.setAutoCommit(true);
            }
        }
        return plan.toString();
    }

    private static void fill(TableName table, int rows) {
        PostgreSqlTestServer.execute(ds, "INSERT INTO " + table.qualified()
                + " (idempotency_key, type, payload, headers, status, attempt_count, created_at)"
                + " SELECT 'plan-' || g, 'plans.test', convert_to(rpad('{\"seq\":' || g || '}', 200), 'UTF8'), '{}',"
                + " 'PENDING', 0, now() FROM generate_series(1, " + rows + ") AS g");
    }
}
