package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.lease.spi.GroupRowsByDefault;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ErrorClassifier;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The entry point as a service uses it, on an in-memory H2 outbox. */
class LeaseboxOnH2Test {

    private HikariDataSource ds;
    private TableName table;
    private final Set<Long> delivered = ConcurrentHashMap.newKeySet();
    private final OutboxProvider provider = envelope -> {
        delivered.add(envelope.entryId());
        return ProviderOutcome.delivered();
    };

    @BeforeEach
    void openDatabase() {
        ds = H2TestDatabase.newDatabase();
        table = TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        for (int i = 0; i < 30; i++) {
            writer.enqueue(ds, OutboxMessage.of("t", ("" + i).getBytes(StandardCharsets.UTF_8)));
        }
    }

    @AfterEach
    void closeDatabase() {
        ds.close();
    }

    @Test
    void withoutATableTheDrainUsesTheTableTheCliAndTheStarterUse() {
        new LeaseboxSchema(DatabaseKind.H2, TableName.DEFAULT).applyAll(ds);
        OutboxWriter.of(TableName.DEFAULT, Clock.systemUTC())
                .enqueue(ds, OutboxMessage.of("t", "default".getBytes(StandardCharsets.UTF_8)));
        try (Leasebox drain = Leasebox.drain(ds).provider(provider).build()) {
            drain.engine().drainUntilIdle(5);
        }
        assertThat(TableName.DEFAULT.table()).isEqualTo("leasebox_outbox");
        assertThat(delivered).hasSize(1);
    }

    @Test
    void withoutLeasesTheDrainClaimsInTheDatabaseAndDeliversEveryEntry() {
        try (Leasebox drain = Leasebox.drain(ds).table(table).provider(provider)
                .options(DrainOptions.builder().batchSize(7).build()).build()) {
            drain.engine().drainUntilIdle(20);
            assertThat(drain.claimStore()).isInstanceOf(JdbcOutboxStore.class);
            assertThat(drain.describe()).startsWith("database");
        }
        assertThat(delivered).hasSize(30);
    }

    @Test
    void withALeaseManagerRowsAreLeasedFromIt() {
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC());
             Leasebox drain = Leasebox.drain(ds).table(table).leases(leases).provider(provider).build()) {
            drain.engine().drainUntilIdle(20);
            assertThat(drain.claimStore()).isInstanceOf(LeasedOutboxClaimStore.class);
            assertThat(drain.describe()).contains("claim mode recorded");
        }
        assertThat(delivered).hasSize(30);
    }

    @Test
    void aDrainWithoutAProviderOrWithLeanDatabaseClaimsIsRefusedSayingWhatToDo() {
        assertThatThrownBy(() -> Leasebox.drain(ds).table(table).build())
                .hasMessageContaining("needs a provider: call .provider(");
        assertThatThrownBy(() -> Leasebox.drain(ds).table(table).provider(provider).claimMode(ClaimMode.LEAN).build())
                .hasMessageContaining("lean claims need a lease manager");
        assertThatThrownBy(() -> Leasebox.drain(ds).table(table).provider(provider).ordered(true).build())
                .hasMessageContaining("Granularity.PARTITION");
    }

    @Test
    void partitionLeasesAreRefusedOnH2WithOneLineNamingTheFlag() {
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC())) {
            assertThatThrownBy(() -> Leasebox.drain(ds).table(table).leases(leases)
                    .granularity(Granularity.PARTITION).provider(provider).build())
                    .hasMessageContaining("Partition leases need PostgreSQL or MariaDB").hasMessageContaining("h2")
                    .hasMessageContaining("--granularity row").hasMessageNotContaining("\n");
        }
    }

    @Test
    void aLeanWorkerIsRefusedBesideALiveRecordedOne() {
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC());
             Leasebox recorded = Leasebox.drain(ds).table(table).provider(provider).build()) {
            assertThat(recorded.options().owner()).isNotBlank();
            assertThatThrownBy(() -> Leasebox.drain(ds).table(table).leases(leases).claimMode(ClaimMode.LEAN)
                    .coordinator("memory", "here", "ns").provider(provider).build())
                    .isInstanceOf(JdbcOutboxException.class);
        }
    }

    @Test
    void migrateAppliesOnlyWhatTheTableLacksAndCanRunAtEveryStart() throws Exception {
        TableName fresh = new TableName(H2TestDatabase.SCHEMA, "migrated_outbox");
        LeaseboxSchema schema = new LeaseboxSchema(DatabaseKind.H2, fresh);
        assertThat(schema.migrate(ds)).as("the version before").isZero();
        assertThat(SchemaVersion.applied(ds, fresh)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
        assertThat(schema.migrate(ds)).isEqualTo(LeaseboxSchema.LATEST_VERSION);

        TableName older = new TableName(H2TestDatabase.SCHEMA, "older_outbox");
        new LeaseboxSchema(DatabaseKind.H2, older).apply(ds, 1, 2);
        assertThat(new LeaseboxSchema(DatabaseKind.H2, older).migrate(ds)).isEqualTo(2);
        assertThat(SchemaVersion.applied(ds, older)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
    }

    /** A coordinator for which a lease per row is costly, as Hazelcast and ZooKeeper are: records the keys asked for. */
    private static final class CostlyPerRow extends ForwardingLeaseManager implements GroupRowsByDefault {
        final Set<String> keysAsked = ConcurrentHashMap.newKeySet();
        volatile boolean closed;

        CostlyPerRow() {
            super(new InMemoryLeaseManager(Clock.systemUTC()));
        }

        @Override
        public List<Lease> acquire(LeaseRequest request) {
            keysAsked.addAll(request.keys());
            return super.acquire(request);
        }

        @Override
        public String whyGroupRows() {
            return "a test coordinator";
        }

        @Override
        public void close() {
            closed = true;
            super.close();
        }
    }

    @Test
    void aManagerForWhichALeasePerRowIsCostlyHasItsRowsGroupedAndStaysTheCallers() {
        try (CostlyPerRow leases = new CostlyPerRow()) {
            try (Leasebox drain = Leasebox.drain(ds).table(table).leases(leases).provider(provider).build()) {
                drain.engine().drainUntilIdle(20);
                assertThat(drain.describe()).contains("rows grouped (4096 row groups of 128 rows");
            }
            assertThat(delivered).hasSize(30);
            assertThat(leases.keysAsked).as("the coordinator was asked for group keys only").isNotEmpty()
                    .allMatch(key -> key.startsWith(GroupedLeaseManager.GROUP_PREFIX));
            assertThat(leases.closed).as("closing the drain closes the grouping it opened, not the caller's manager").isFalse();
        }
    }

    @Test
    void rowGroupingNoneLeasesEveryRowOnItsOwnAndOtherManagersAreNotGrouped() {
        try (CostlyPerRow costly = new CostlyPerRow();
             Leasebox drain = Leasebox.drain(ds).table(table).leases(costly).rowGrouping(LeaseGrouping.NONE).provider(provider).build()) {
            drain.engine().drainUntilIdle(20);
            assertThat(costly.keysAsked).hasSize(30).noneMatch(key -> key.startsWith(GroupedLeaseManager.GROUP_PREFIX));
        }
        try (InMemoryLeaseManager cheap = new InMemoryLeaseManager(Clock.systemUTC());
             Leasebox drain = Leasebox.drain(ds).table(table).leases(cheap).provider(provider).build()) {
            assertThat(drain.describe()).doesNotContain("rows grouped");
        }
    }

    @Test
    void aRowGroupingThatContradictsTheGivenGroupedManagerOrHasNoRowsToGroupIsRefused() {
        try (InMemoryLeaseManager inner = new InMemoryLeaseManager(Clock.systemUTC());
             GroupedLeaseManager grouped = GroupedLeaseManager.builder(inner, LeaseGrouping.DEFAULT).open()) {
            assertThatThrownBy(() -> Leasebox.drain(ds).table(table).leases(grouped).rowGrouping(LeaseGrouping.NONE)
                    .provider(provider).build()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already groups rows");
            try (Leasebox drain = Leasebox.drain(ds).table(table).leases(grouped).rowGrouping(LeaseGrouping.DEFAULT)
                    .provider(provider).build()) {
                assertThat(drain.describe()).contains("rows grouped");
            }
        }
        assertThatThrownBy(() -> Leasebox.drain(ds).table(table).rowGrouping(LeaseGrouping.DEFAULT).provider(provider).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("rowGrouping is for row leases");
    }

    @Test
    void aProviderErrorTheClassifierCallsPermanentDeadLettersTheEntryAtOnce() throws Exception {
        OutboxProvider refusing = envelope -> {
            throw new IllegalArgumentException("malformed payload");
        };
        try (Leasebox drain = Leasebox.drain(ds).table(table).provider(refusing)
                .errorClassifier(ErrorClassifier.permanentFor(IllegalArgumentException.class))
                .options(DrainOptions.builder().maxAttempts(5).build()).build()) {
            drain.engine().drainUntilIdle(20);
        }
        try (var connection = ds.getConnection(); var statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT status, attempt_count, COUNT(*) FROM " + table.qualified()
                     + " GROUP BY status, attempt_count")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1) + " after " + rows.getInt(2) + ": " + rows.getInt(3)).isEqualTo("DEAD_LETTERED after 1: 30");
            assertThat(rows.next()).isFalse();
        }
    }

    @Test
    void theVersionOfATableWithTheLongestNameIsRead() throws Exception {
        TableName longest = new TableName(H2TestDatabase.SCHEMA, "outbox_with_the_longest_name_allowed_040");
        assertThat(longest.table()).hasSize(40);
        new LeaseboxSchema(DatabaseKind.H2, longest).applyAll(ds);
        assertThat(SchemaVersion.applied(ds, longest)).as("its registry's name is longer than a table name may be")
                .isEqualTo(LeaseboxSchema.LATEST_VERSION);
    }
}
