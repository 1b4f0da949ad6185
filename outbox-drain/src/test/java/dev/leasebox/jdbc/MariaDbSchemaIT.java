package dev.leasebox.jdbc;

import dev.leasebox.jdbc.lease.JdbcLeaseManager;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The migration scripts on a real MariaDB, whose DDL statements commit one by one: an apply killed
 * after any statement of any script (the server kills the session, so what was not committed is rolled
 * back, as after a deploy timeout or ^C) is completed by the next apply to the same objects as an
 * uninterrupted one, and the table then claims and completes. A script counts as applied only when all
 * of its objects exist.
 */
class MariaDbSchemaIT {

    @RegisterExtension
    static final MariaDbDatabase DB = new MariaDbDatabase(4);

    private static final AtomicInteger TABLES = new AtomicInteger();

    @Test
    void anApplyKilledAfterAnyStatementOfAnyScriptIsCompletedByTheNextApply() throws Exception {
        TableName reference = fresh("reference");
        new LeaseboxSchema(DatabaseKind.MARIADB, reference).applyAll(DB.ds());
        List<String> expected = catalog(reference);

        List<Integer> lastStatementOfScript = new ArrayList<>();
        int total = 0;
        for (LeaseboxSchema.Migration m : new LeaseboxSchema(DatabaseKind.MARIADB, reference).migrations()) {
            total += LeaseboxSchema.statements(m.sql()).size();
            lastStatementOfScript.add(total);
        }
        assertThat(lastStatementOfScript).as("one entry per script").hasSize(LeaseboxSchema.LATEST_VERSION);

        for (int k = 1; k <= total; k++) {
            TableName table = fresh("killed");
            LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.MARIADB, table);
            int killAfter = k;
            try (Connection raw = DriverManager.getConnection(MariaDbTestServer.jdbcUrlFor(DB.name()))) {
                assertThatThrownBy(() -> schema.apply(killedAfter(raw, killAfter), 1, LeaseboxSchema.LATEST_VERSION))
                        .as("the apply killed after statement %d", k).isInstanceOf(SQLException.class);
            }
            int complete = 0;
            while (complete < lastStatementOfScript.size() && lastStatementOfScript.get(complete) <= k) {
                complete++;
            }
            int reported = SchemaVersion.applied(DB.ds(), table);
            assertThat(reported).as("the version reported after a kill after statement %d (%d scripts ran whole)",
                    k, complete).isLessThanOrEqualTo(complete);

            assertThat(schema.migrate(DB.ds())).as("migrate starts from what it found").isEqualTo(reported);
            assertThat(SchemaVersion.applied(DB.ds(), table)).as("after re-applying, statement %d", k)
                    .isEqualTo(LeaseboxSchema.LATEST_VERSION);
            assertThat(catalog(table)).as("the objects after a kill after statement %d and a re-apply", k)
                    .isEqualTo(expected);
            claimsAndCompletes(table);
        }
    }

    @Test
    void aTableWhoseV3StoppedHalfWayIsAtV2EvenAfterV4AndV5RanAndMigrateCompletesIt() throws Exception {
        TableName reference = fresh("reference");
        new LeaseboxSchema(DatabaseKind.MARIADB, reference).applyAll(DB.ds());
        // What an interrupted V3 followed by an apply that trusted the lease_slot column left behind.
        TableName table = fresh("half_v3");
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.MARIADB, table);
        schema.apply(DB.ds(), 1, 2);
        LeaseboxSchema.Migration v3 = schema.migrations().get(2);
        PostgreSqlTestServer.execute(DB.ds(), LeaseboxSchema.statements(v3.sql()).get(0));
        schema.apply(DB.ds(), 4, 5);

        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(2);
        assertThat(schema.migrate(DB.ds())).isEqualTo(2);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
        assertThat(catalog(table)).isEqualTo(catalog(reference));
        claimsAndCompletes(table);
    }

    @Test
    void v6MovesAV5TableToKeysThatCompareAsBytesKeepingItsRows() throws Exception {
        TableName table = fresh("v5");
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.MARIADB, table);
        schema.apply(DB.ds(), 1, 5);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(5);
        JdbcOutboxStore store = JdbcOutboxStore.builder(DB.ds()).table(table).open();
        store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k"));

        assertThat(schema.migrate(DB.ds())).isEqualTo(5);
        assertThat(SchemaVersion.applied(DB.ds(), table)).as("V6, V7 with nothing to do on MariaDB, and V8")
                .isEqualTo(LeaseboxSchema.LATEST_VERSION);
        store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k "));
        assertThat(count("SELECT COUNT(*) FROM " + table)).isEqualTo(2);
    }

    @Test
    void aV7TableIsAtV7AndV8AddsTheCountOfTakeovers() throws Exception {
        TableName table = fresh("v7");
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.MARIADB, table);
        schema.apply(DB.ds(), 1, 7);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(7);
        assertThat(new OutboxTableStatus(DB.ds(), table).takenOverTotal()).as("no count without V8").isEmpty();
        assertThat(schema.migrate(DB.ds())).isEqualTo(7);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(8);
        assertThat(new OutboxTableStatus(DB.ds(), table).takenOverTotal()).hasValue(0);
    }

    @Test
    void aMixedCaseTableNameIsAtTheVersionItsScriptsMadeIt() throws Exception {
        TableName table = new TableName(DB.name(), "Orders_" + TABLES.incrementAndGet());
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.MARIADB, table);
        schema.apply(DB.ds(), 1, 4);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(4);
        schema.apply(DB.ds(), 5, LeaseboxSchema.LATEST_VERSION);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
    }

    /** The database claim and a completion work on the table, and so does a lease held in it. */
    private static void claimsAndCompletes(TableName table) {
        JdbcOutboxStore store = JdbcOutboxStore.builder(DB.ds()).table(table).open();
        store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k1"));
        store.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("k2"));
        List<OutboxClaim> claims = store.claimPending(new ClaimRequest("w", 10, Duration.ofSeconds(30)));
        assertThat(claims).hasSize(2);
        for (OutboxClaim claim : claims) {
            assertThat(store.markClaimDelivered(claim, EmissionResult.at(Instant.now())))
                    .isInstanceOf(CompletionOutcome.Completed.class);
        }
        assertThat(store.find(claims.get(0).entryId()).orElseThrow().status()).isEqualTo(EmissionStatus.DELIVERED);
        try (JdbcLeaseManager leases = JdbcLeaseManager.builder(DB.ds()).table(table).open()) {
            List<Lease> granted = leases.acquire(new LeaseRequest(Set.of("a", "b"), "w", Duration.ofSeconds(30)));
            assertThat(granted).hasSize(2);
        }
    }

    /** Every object of the table, as the server describes it, with the table's own name taken out. */
    private static List<String> catalog(TableName table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement()) {
            for (String suffix : List.of("", "_lease_slots", "_workers", "_leases", "_claim_styles")) {
                try (ResultSet rs = st.executeQuery("SHOW CREATE TABLE " + table + suffix)) {
                    rs.next();
                    out.add(rs.getString(2).replace(table.table(), "T").replaceAll(" AUTO_INCREMENT=\\d+", ""));
                }
            }
            for (String suffix : List.of("_claim_token_seq", "_lease_fence_seq")) {
                try (ResultSet rs = st.executeQuery("SHOW CREATE SEQUENCE " + table + suffix)) {
                    rs.next();
                    out.add(rs.getString(2).replace(table.table(), "T"));
                }
            }
        }
        out.add("slots " + count("SELECT COUNT(*) FROM " + table + "_lease_slots"));
        out.add("guard rows " + count("SELECT COUNT(*) FROM " + table + "_claim_styles WHERE owner = ''"));
        return out;
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static TableName fresh(String prefix) {
        return new TableName(DB.name(), prefix + "_" + TABLES.incrementAndGet());
    }

    /**
     * {@code real}, whose statements are killed by the server (KILL CONNECTION from another session)
     * right after the {@code k}-th one has run; that statement's caller then sees the lost connection.
     */
    private static Connection killedAfter(Connection real, int k) throws SQLException {
        long id;
        try (Statement st = real.createStatement(); ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            id = rs.getLong(1);
        }
        AtomicInteger executed = new AtomicInteger();
        return (Connection) Proxy.newProxyInstance(MariaDbSchemaIT.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(real, method, args);
                    if (result instanceof Statement st && method.getName().equals("createStatement")) {
                        return Proxy.newProxyInstance(MariaDbSchemaIT.class.getClassLoader(), new Class<?>[]{Statement.class},
                                (p, m, a) -> {
                                    Object r = invoke(st, m, a);
                                    if (m.getName().startsWith("execute") && executed.incrementAndGet() == k) {
                                        PostgreSqlTestServer.execute(DB.ds(), "KILL CONNECTION " + id);
                                        throw new SQLException("killed after statement " + k);
                                    }
                                    return r;
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
