package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.Granularity;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testing.LeaseboxToolBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Drains whose idle poll is 30 s, woken by V7's commit notifications: only a wake-up can explain a delivery
 * within {@link #BOUND}. Rows are inserted by plain SQL on connections of their own, as another service would.
 */
class PostgreSqlWakeUpsIT {

    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(15);
    private static final AtomicInteger KEYS = new AtomicInteger();

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(12);

    private final List<Leasebox> drains = new ArrayList<>();
    private final Map<Long, AtomicInteger> emissions = new ConcurrentHashMap<>();
    private final AtomicInteger idlePolls = new AtomicInteger();

    @AfterEach
    void closeDrains() {
        drains.forEach(Leasebox::close);
    }

    @Test
    void aRowInsertedByPlainSqlWakesAnIdleDrain() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
        start(table, "plain-sql");
        await().atMost(BOUND).until(() -> idlePolls.get() >= 1 && listenerPid(table).isPresent());

        insertByPlainSql(table, 1);

        await().atMost(BOUND).until(() -> emissions.size() == 1);
    }

    @Test
    void aWorkerHoldingTheTablesSlotsIsWokenUnderPartitionLeases() {
        TableName table = new TableName(DB.name(), "outbox_slots_" + KEYS.incrementAndGet());
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table, 4).applyAll(DB.ds());
        start(table, "slot-holder", b -> b.granularity(Granularity.PARTITION));
        await().atMost(BOUND).until(() -> idlePolls.get() >= 1 && listenerPid(table).isPresent()
                && count("SELECT count(*) FROM " + table + "_lease_slots WHERE holder = 'slot-holder'") == 4);

        insertByPlainSql(table, 3);

        await().atMost(BOUND).until(() -> emissions.size() == 3);
    }

    @Test
    void rowsInsertedWhileTheListenerIsCutOffAreStillDelivered() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
        start(table, "cut-off");
        await().atMost(BOUND).until(() -> idlePolls.get() >= 1 && listenerPid(table).isPresent());
        int cutOff = listenerPid(table).orElseThrow();

        query("SELECT pg_terminate_backend(" + cutOff + ")");
        insertByPlainSql(table, 20); // notifications of these may be sent before anyone listens again: lost

        await("every row, by the reconnection's wake-up or a notification").atMost(BOUND)
                .until(() -> emissions.size() == 20);
        assertThat(listenerPid(table)).as("a new listening session").isPresent().get().isNotEqualTo(cutOff);
    }

    @Test
    void aTableWhoseChannelNameWouldPassSixtyThreeBytesIsWokenOnItsHashedChannel() {
        String schema = ("wake_" + DB.name() + "_").concat("s".repeat(40)).substring(0, 40);
        query("CREATE SCHEMA " + schema);
        try {
            TableName table = new TableName(schema, "t".repeat(38) + KEYS.incrementAndGet() % 10);
            new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(DB.ds());
            start(table, "long-names");
            await().atMost(BOUND).until(() -> idlePolls.get() >= 1 && listenerPid(table).isPresent());

            insertByPlainSql(table, 1);

            await().atMost(BOUND).until(() -> emissions.size() == 1);
        } finally {
            drains.forEach(Leasebox::close);
            drains.clear();
            query("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    @Test
    void withTheTriggerDisabledTheTableStaysAtV7AndWritersOfTheProcessStillWake() throws Exception {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
        query("ALTER TABLE " + table + " DISABLE TRIGGER " + table.table() + "_wake_up");
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
        Leasebox drain = start(table, "disabled");
        await().atMost(BOUND).until(() -> idlePolls.get() >= 1 && listenerPid(table).isPresent());

        drain.writer().enqueue(DB.ds(), OutboxMessage.of("order-placed", "{}".getBytes(StandardCharsets.UTF_8)));

        await().atMost(BOUND).until(() -> emissions.size() == 1);
    }

    @Test
    void aTableWithoutTheTriggerIsAtV6() throws Exception {
        TableName table = new TableName(DB.name(), "outbox_v6_" + KEYS.incrementAndGet());
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.POSTGRESQL, table);
        schema.apply(DB.ds(), 1, 6);
        assertThat(SchemaVersion.applied(DB.ds(), table)).isEqualTo(6);
        assertThat(schema.migrate(DB.ds())).isEqualTo(6);
        assertThat(SchemaVersion.applied(DB.ds(), table)).as("V7, then V8").isEqualTo(LeaseboxSchema.LATEST_VERSION);
    }

    @Test
    void twoDrainsWokenByTheSameCommitsEmitEveryRowOnce() {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
        start(table, "twin-a");
        start(table, "twin-b");
        await().atMost(BOUND).until(() -> idlePolls.get() >= 2 && listenerPid(table).isPresent());

        for (int i = 0; i < 20; i++) {
            insertByPlainSql(table, 10);
        }

        await().atMost(BOUND).until(() -> emissions.size() == 200);
        assertThat(emissions.values()).as("emissions per row").allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    }

    private Leasebox start(TableName table, String owner) {
        return start(table, owner, UnaryOperator.identity());
    }

    private Leasebox start(TableName table, String owner, UnaryOperator<Leasebox.Builder> configure) {
        Leasebox.Builder builder = LeaseboxToolBuilder.drain(DB.ds()).withoutClaimStyleRegistry().table(table)
                .options(DrainOptions.builder().owner(owner).idlePolling(POLL, POLL).build())
                .listener(new DrainListener() {
                    @Override
                    public void idlePoll() {
                        idlePolls.incrementAndGet();
                    }
                })
                .provider(envelope -> {
                    emissions.computeIfAbsent(envelope.entryId(), id -> new AtomicInteger()).incrementAndGet();
                    return ProviderOutcome.delivered();
                });
        Leasebox drain = configure.apply(builder).build();
        drains.add(drain);
        drain.start();
        return drain;
    }

    /** {@code rows} rows in one transaction, by plain SQL on a connection of its own. */
    private static void insertByPlainSql(TableName table, int rows) {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            for (int i = 0; i < rows; i++) {
                st.executeUpdate("INSERT INTO " + table + " (idempotency_key, type, payload, created_at) VALUES ('plain-"
                        + KEYS.incrementAndGet() + "', 'order-placed', '\\x7b7d'::bytea, now())");
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The backend pid of the session listening for {@code table}'s commits. */
    private static Optional<Integer> listenerPid(TableName table) {
        String channel = PostgreSqlCommitListener.channel(table.schema(), table.table());
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pid, query FROM pg_stat_activity WHERE application_name = '"
                     + PostgreSqlCommitListener.APPLICATION_NAME + "'")) {
            while (rs.next()) {
                // the session's last statement: its LISTEN (until the trigger check 30 s later)
                if (rs.getString(2).contains(channel)) {
                    return Optional.of(rs.getInt(1));
                }
            }
            return Optional.empty();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(String sql) {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static void query(String sql) {
        try (Connection c = DB.ds().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
