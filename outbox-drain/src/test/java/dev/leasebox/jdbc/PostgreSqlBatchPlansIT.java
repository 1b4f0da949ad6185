package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.dialect.PostgreSqlDialect;
import dev.leasebox.jdbc.dialect.PostgreSqlSlotStatements;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batched PostgreSQL statements (claim recording, completion, fenced completion, renewal) cost
 * one primary-key probe per batch element whatever the table's statistics say: EXPLAIN ANALYZE of
 * each, bound exactly as the store binds it and rolled back, must touch no more outbox rows than the
 * batch has, over a backlog of 20,000 eligible rows
 * <ul>
 *   <li>on a table never analyzed (as the bench's fresh tables were: record_claims then scanned every
 *       eligible row once per grant, 1–2 s for 100 grants), and</li>
 *   <li>on a table whose statistics were taken when nothing was eligible (a burst after a quiet
 *       period: the plans then hash-joined the whole backlog).</li>
 * </ul>
 */
class PostgreSqlBatchPlansIT {

    private static final int BATCH = 100;
    private static final int BACKLOG = 20_000;
    private static final Pattern ROWS = Pattern.compile("actual rows=(\\d+) loops=(\\d+)");
    private static final Pattern REMOVED = Pattern.compile("Rows Removed by (?:Join )?Filter: (\\d+)");

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
    void onATableNeverAnalyzedEachBatchedStatementProbesOnlyTheBatchsRows() throws SQLException {
        TableName table = TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema);
        fill(table, "PENDING", BACKLOG);
        assertEveryBatchedStatementProbesOnlyTheBatch(table);
    }

    @Test
    void withStatisticsSayingNothingIsEligibleEachBatchedStatementProbesOnlyTheBatchsRows() throws SQLException {
        TableName table = TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema);
        fill(table, "DELIVERED", 5_000);
        PostgreSqlTestServer.execute(ds, "ANALYZE " + table.qualified());
        fill(table, "PENDING", BACKLOG);
        assertEveryBatchedStatementProbesOnlyTheBatch(table);
    }

    private void assertEveryBatchedStatementProbesOnlyTheBatch(TableName table) throws SQLException {
        JdbcOutboxStore store = JdbcOutboxStore.builder(ds).table(table).open();
        PostgreSqlDialect dialect = (PostgreSqlDialect) store.dialect();
        Instant now = Instant.now();
        List<Long> ids = batchIds(table);
        List<ClaimGrant> grants = new ArrayList<>();
        List<OutboxClaim> claims = new ArrayList<>();
        List<ClaimCompletion> completions = new ArrayList<>();
        for (long id : ids) {
            long token = 1_000 + id;
            grants.add(new ClaimGrant(id, "w1", token, now, now.plusSeconds(30)));
            OutboxEntry row = store.find(id).orElseThrow();
            OutboxClaim claim = new OutboxClaim(row.toBuilder().claim("w1", token, now, now.plusSeconds(30), 1).build(),
                    "w1", token, now, now.plusSeconds(30), 1);
            claims.add(claim);
            completions.add(new ClaimCompletion(claim, new Completion.Delivered(EmissionResult.at(now))));
        }

        assertProbesOnlyTheBatch(table, "record_claims", false, explain(table, dialect, "record_claims", false,
                (c, ps) -> dialect.bindRecordClaims(ps, ClaimSelection.ELIGIBLE, now, grants)));
        assertProbesOnlyTheBatch(table, "complete_all", true, explain(table, dialect, "complete_all", true,
                (c, ps) -> dialect.bindCompletions(ps, completions, false, null)));
        assertProbesOnlyTheBatch(table, "complete_all_fenced", false, explain(table, dialect, "complete_all_fenced", false,
                (c, ps) -> dialect.bindCompletions(ps, completions, true, null)));
        assertProbesOnlyTheBatch(table, "extend_claims", true, explain(table, dialect, "extend_claims", true,
                (c, ps) -> dialect.bindExtendClaims(ps, claims, now.plusSeconds(60), 0)));

        // lean partition completions, under grants of fence 5000 registered for every slot
        List<dev.leasebox.claim.partition.SlotOutboxStore.SlotCompletion> slotCompletions = new ArrayList<>();
        Map<Long, Integer> slots = slotsOf(table, ids);
        for (long id : ids) {
            OutboxEntry row = store.find(id).orElseThrow();
            OutboxClaim claim = new OutboxClaim(row, "w1", 5_000, now, now.plusSeconds(30), 0);
            slotCompletions.add(new dev.leasebox.claim.partition.SlotOutboxStore.SlotCompletion(claim, slots.get(id),
                    new Completion.Delivered(EmissionResult.at(now))));
        }
        PostgreSqlTestServer.execute(ds, "UPDATE " + table.qualified() + "_lease_slots SET fence_high_water = 5000");
        assertProbesOnlyTheBatch(table, "slot_complete", false, explain(table, dialect, "slot_complete", false,
                (c, ps) -> PostgreSqlSlotStatements.bindCompletions(ps, slotCompletions, now)));
    }

    private static Map<Long, Integer> slotsOf(TableName table, List<Long> ids) throws SQLException {
        Map<Long, Integer> slots = new java.util.HashMap<>();
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT id, lease_slot FROM " + table.qualified() + " WHERE id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    slots.put(rs.getLong(1), rs.getInt(2));
                }
            }
        }
        return slots;
    }

    private static void assertProbesOnlyTheBatch(TableName table, String statement, boolean claimed, List<String> plan) {
        String text = String.join("\n", plan);
        long touched = 0;
        for (String line : plan) {
            if (line.contains("Scan") && line.contains(" on " + table.table() + " t")) {
                Matcher m = ROWS.matcher(line);
                if (m.find()) {
                    touched += Long.parseLong(m.group(1)) * Long.parseLong(m.group(2));
                }
            }
        }
        long removed = 0;
        Matcher m = REMOVED.matcher(text);
        while (m.find()) {
            removed += Long.parseLong(m.group(1));
        }
        assertThat(touched).as("outbox rows %s touched over a backlog of %d (claimed batch: %s); plan:%n%s",
                statement, BACKLOG, claimed, text).isPositive().isLessThanOrEqualTo(BATCH);
        assertThat(removed).as("rows %s filtered away; plan:%n%s", statement, text).isLessThanOrEqualTo(BATCH);
        assertThat(plan.get(0)).as("%s wrote the whole batch; plan:%n%s", statement, text)
                .contains("actual rows=" + BATCH + " ");
    }

    @FunctionalInterface
    private interface Binder {
        void bind(Connection c, PreparedStatement ps) throws SQLException;
    }

    /** EXPLAIN ANALYZE of {@code statement} as the store binds it, in a transaction rolled back. */
    private static List<String> explain(TableName table, SqlDialect dialect, String statement, boolean claimFirst,
                                        Binder binder) throws SQLException {
        List<String> plan = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (claimFirst) {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + table.qualified()
                            + " SET claim_token = 1000 + id, fence_high_water = 1000 + id WHERE id = ANY (?)")) {
                        ps.setArray(1, c.createArrayOf("bigint", batchIds(c, table).toArray()));
                        ps.executeUpdate();
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)\n"
                        + dialect.sql(statement))) {
                    binder.bind(c, ps);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            plan.add(rs.getString(1));
                        }
                    }
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        return plan;
    }

    /** Every other id of the oldest 2 × BATCH pending rows: a batch spread over the oldest candidates. */
    private static List<Long> batchIds(TableName table) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return batchIds(c, table);
        }
    }

    private static List<Long> batchIds(Connection c, TableName table) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table.qualified()
                + " WHERE status = 'PENDING' ORDER BY id LIMIT " + (2 * BATCH));
             ResultSet rs = ps.executeQuery()) {
            int i = 0;
            while (rs.next()) {
                if (i++ % 2 == 0) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    private static void fill(TableName table, String status, int rows) {
        PostgreSqlTestServer.execute(ds, "INSERT INTO " + table.qualified()
                + " (idempotency_key, type, payload, headers, status, attempt_count, created_at)"
                + " SELECT '" + status + "-' || g || '-' || random(), 'plans.test', '\\x00', '{}', '" + status + "', 0, now()"
                + " FROM generate_series(1, " + rows + ") AS g");
    }
}
