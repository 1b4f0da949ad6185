package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.dialect.PostgreSqlDialect;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.jdbc.store.QueueHead;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The schema scripts and start-up checks on a real PostgreSQL: the scripts apply in order to an
 * empty schema, the partial index serves the candidate query, bad input gives one clear line, and
 * a stale finalization is refused by the database itself.
 */
class PostgreSqlSchemaIT {

    private static HikariDataSource ds;
    private static String schema;

    @BeforeAll
    static void createSchema() {
        ds = PostgreSqlTestServer.dataSource(4);
        schema = PostgreSqlTestServer.newSchema(ds);
    }

    @AfterAll
    static void dropSchema() {
        if (ds != null) {
            PostgreSqlTestServer.dropSchema(ds, schema);
            ds.close();
        }
    }

    @Test
    void scriptsApplyInOrderToAnEmptySchemaAndCreateWhatTheStoreNeeds() throws Exception {
        String empty = PostgreSqlTestServer.newSchema(ds);
        try {
            applyToEmptySchema(empty);
        } finally {
            PostgreSqlTestServer.dropSchema(ds, empty);
        }
    }

    private void applyToEmptySchema(String schema) throws Exception {
        TableName table = new TableName(schema, "leasebox_outbox");
        LeaseboxSchema scripts = new LeaseboxSchema(DatabaseKind.POSTGRESQL, table);
        assertThat(scripts.migrations()).extracting(LeaseboxSchema.Migration::fileName)
                .containsExactly("V1__create_leasebox_outbox.sql", "V2__add_claim_leases.sql", "V3__add_lease_slots.sql",
                        "V4__add_claim_styles.sql", "V5__lean_claim_queue.sql", "V6__keys_compare_as_bytes.sql",
                        "V7__wake_up_at_commit.sql", "V8__count_takeovers.sql");
        assertThat(scripts.migrations()).as("statements (comments keep the placeholders they explain)")
                .allSatisfy(m -> assertThat(LeaseboxSchema.statements(m.sql())).noneMatch(st -> st.contains("${")));

        scripts.apply(ds, 1, 1);
        assertThat(columns(table)).doesNotContain("claim_token", "fence_high_water");
        scripts.apply(ds, 2, 2);

        assertThat(columns(table)).contains("id", "idempotency_key", "partition_key", "type", "payload", "headers",
                "status", "attempt_count", "next_attempt_at", "created_at", "delivered_at", "last_error",
                "dead_letter_reason", "claim_owner", "claimed_at", "claim_expires_at", "claim_token",
                "claim_attempt_count", "fence_high_water");
        assertThat(query("SELECT indexdef FROM pg_indexes WHERE schemaname = '" + schema
                + "' AND indexname = 'leasebox_outbox_claim_candidates'"))
                .singleElement().asString().contains("WHERE (status = ANY");
        assertThat(query("SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = '" + schema + "'"))
                .containsExactlyInAnyOrder("leasebox_outbox_id_seq", "leasebox_outbox_claim_token_seq");
        JdbcOutboxStore store = JdbcOutboxStore.builder(ds).table(table).open();
        assertThat(store.enqueue(OutboxMessage.of("t", new byte[0])).status()).isEqualTo(EmissionStatus.PENDING);
        // V5 on a table that already had rows: the candidate index replaced, the fillfactor set
        scripts.apply(ds, 3, LeaseboxSchema.LATEST_VERSION);
        assertThat(query("SELECT indexdef FROM pg_indexes WHERE schemaname = '" + schema
                + "' AND indexname IN ('leasebox_outbox_claim_candidates', 'leasebox_outbox_claim_queue')"))
                .singleElement().asString().contains("leasebox_outbox_claim_queue").contains("(id) WHERE (status = ANY")
                .doesNotContain("INCLUDE");
        assertThat(query("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = '" + table + "'::regclass"))
                .containsExactly("fillfactor=50");
        assertThat(query("SELECT tgname FROM pg_trigger WHERE tgrelid = '" + table + "'::regclass AND NOT tgisinternal"))
                .as("V7's trigger").containsExactly("leasebox_outbox_wake_up");
        assertThat(query("SELECT taken_over FROM " + table + "_claim_styles WHERE owner = ''")).as("V8's count")
                .containsExactly("0");
    }

    @Test
    void aV7TableIsAtV7AndV8AddsTheCountOfTakeovers() throws Exception {
        TableName table = new TableName(schema, "v7_" + Long.toHexString(System.nanoTime()));
        LeaseboxSchema scripts = new LeaseboxSchema(DatabaseKind.POSTGRESQL, table);
        scripts.apply(ds, 1, 7);
        assertThat(SchemaVersion.applied(ds, table)).isEqualTo(7);
        assertThat(new OutboxTableStatus(ds, table).takenOverTotal()).as("no count without V8").isEmpty();
        assertThat(scripts.migrate(ds)).isEqualTo(7);
        assertThat(SchemaVersion.applied(ds, table)).isEqualTo(8);
        assertThat(new OutboxTableStatus(ds, table).takenOverTotal()).hasValue(0);
    }

    @Test
    void thePartialIndexServesTheCandidateQueryAndTheDatabaseClaim() throws Exception {
        TableName table = TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema);
        SqlDialect dialect = SqlDialect.of(DatabaseKind.POSTGRESQL, table);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO " + table + " (idempotency_key, type, payload, status, created_at) "
                    + "SELECT 'k' || g, 't', '', CASE WHEN g % 10 = 0 THEN 'PENDING' ELSE 'DELIVERED' END, now() "
                    + "FROM generate_series(1, 20000) g");
            st.execute("ANALYZE " + table);
            // A generic plan, as a server-side prepared statement gets after a few runs: the literal
            // status list in the SQL must prove the partial index's predicate without parameter values.
            st.execute("SET plan_cache_mode = force_generic_plan");
            st.execute("SET enable_seqscan = off");
            String index = table.table() + "_claim_queue";
            assertThat(explainGeneric(st, dialect.sql("select_eligible"),
                    "'PENDING', 'DEFERRED', 'RETRYABLE_FAILURE', now(), now(), 10")).contains(index);
            assertThat(explainGeneric(st, ((PostgreSqlDialect) dialect).claimSql(10),
                    "'w', NULL, NULL, 30000, 'PENDING', 'DEFERRED', 'RETRYABLE_FAILURE', NULL, NULL, " + QueueHead.FULL))
                    .contains(index).contains("LockRows");
        }
    }

    private static String explainGeneric(Statement st, String sql, String arguments) throws Exception {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.replaceAll("--[^\n]*", "").toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        st.execute("DEALLOCATE ALL");
        st.execute("PREPARE probe AS " + numbered);
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = st.executeQuery("EXPLAIN EXECUTE probe(" + arguments + ")")) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    @Test
    void openingWithoutTheTableNamesEveryScriptToApply() {
        assertThatThrownBy(() -> JdbcOutboxStore.builder(ds).table(schema + ".absent_outbox").open())
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessageStartingWith("Outbox table " + schema + ".absent_outbox does not exist at jdbc:postgresql://")
                .hasMessageContaining("apply the scripts of db/leasebox/postgresql/ in order (V1 to V" + LeaseboxSchema.LATEST_VERSION + ")")
                .hasMessageNotContaining("\n");
    }

    @Test
    void openingAV1TableWithClaimsNamesTheV2ScriptAndTheOptOut() {
        TableName v1 = new TableName(schema, "v1_outbox");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, v1).apply(ds, 1, 1);
        assertThatThrownBy(() -> JdbcOutboxStore.builder(ds).table(v1).open())
                .isInstanceOf(JdbcOutboxException.class)
                .hasMessage("Outbox table " + v1 + " at " + JdbcUrls.redact(ds.getJdbcUrl())
                        + " lacks the claim columns (claim_owner, claim_token, fence_high_water, …): apply "
                        + "db/leasebox/postgresql/V2__add_claim_leases.sql to it, or set useClaimLeases = false and "
                        + "accept that several workers may emit the same entry twice");
    }

    @Test
    void anInvalidTableNameNamesThePropertyAndTheValue() {
        assertThatThrownBy(() -> TableName.parse("public.outbox\"--"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid outbox table name 'public.outbox\"--' (property table)");
        assertThatThrownBy(() -> TableName.parse("a.b.c")).isInstanceOf(IllegalArgumentException.class);
        assertThat(TableName.parse("Ops_1.leasebox_outbox").qualified()).isEqualTo("Ops_1.leasebox_outbox");
    }

    @Test
    void aStaleFinalizationAfterReclaimIsRefusedByTheDatabaseItself() throws Exception {
        MutableClock clock = MutableClock.startingAt2026();
        TableName table = TestTables.fresh(ds, DatabaseKind.POSTGRESQL, schema);
        JdbcOutboxStore store = JdbcOutboxStore.builder(ds).table(table).clock(clock).open();
        long id = store.enqueue(OutboxMessage.of("t", new byte[0])).id();
        ClaimRequest lease = new ClaimRequest("old", 1, Duration.ofSeconds(30));
        OutboxClaim old = store.claim(ClaimSelection.ELIGIBLE, lease).get(0);
        clock.advance(Duration.ofSeconds(31));
        OutboxClaim fresh = store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("new", 1, Duration.ofSeconds(30))).get(0);

        CompletionOutcome outcome = store.markClaimDelivered(old, EmissionResult.at(clock.instant()));

        assertThat(outcome).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(query("SELECT status || ' ' || claim_owner || ' ' || claim_token || ' ' || fence_high_water FROM "
                + table + " WHERE id = " + id))
                .containsExactly("PENDING new " + fresh.token() + " " + fresh.token());
        store.markClaimDelivered(fresh, EmissionResult.at(clock.instant()));
        store.markClaimDelivered(old, EmissionResult.at(clock.instant()));
        assertThat(query("SELECT status || ' ' || attempt_count || ' ' || coalesce(claim_token::text, '-') || ' ' "
                + "|| fence_high_water FROM " + table + " WHERE id = " + id))
                .containsExactly("DELIVERED 1 - " + fresh.token());
    }

    private static List<String> columns(TableName table) throws Exception {
        return query("SELECT column_name FROM information_schema.columns WHERE table_schema = '" + table.schema()
                + "' AND table_name = '" + table.table() + "' ORDER BY ordinal_position");
    }

    private static List<String> query(String sql) throws Exception {
        return query(ds, sql);
    }

    static List<String> query(javax.sql.DataSource ds, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
