package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.LeaseboxSettings;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Settings applied to the entry point build the drain they describe. */
class LeaseboxSettingsOnH2Test {

    private AutoCloseable memoryBackend;

    @BeforeEach
    void registerTheMemoryBackend() {
        memoryBackend = dev.leasebox.MemoryLeaseBackend.onClassPath();
    }

    @AfterEach
    void unregisterTheMemoryBackend() throws Exception {
        memoryBackend.close();
    }

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
        for (int i = 0; i < 12; i++) {
            writer.enqueue(ds, OutboxMessage.of("t", ("" + i).getBytes(StandardCharsets.UTF_8)));
        }
    }

    @AfterEach
    void closeDatabase() {
        ds.close();
    }

    @Test
    void theDatabaseBackendClaimsInTheTableWithTheSettingsOptions() {
        LeaseboxSettings settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS).set("table", table.qualified())
                .set("backend", "database").set("batch", "5").set("owner", "w1").set("wake-ups", "false").build();
        assertThat(settings.openLeases(Clock.systemUTC())).isEmpty();
        try (Leasebox drain = Leasebox.drain(ds).settings(settings).provider(provider).build()) {
            assertThat(drain.options().batchSize()).isEqualTo(5);
            assertThat(drain.options().owner()).isEqualTo("w1");
            assertThat(drain.describe()).startsWith("database").endsWith("wake-ups off");
            drain.engine().drainUntilIdle(20);
        }
        assertThat(delivered).hasSize(12);
    }

    @Test
    void aBackendOpenedByNameLeasesTheRows() {
        LeaseboxSettings settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS).set("table", table.qualified())
                .set("backend", "memory").set("memory", "here").set("candidate-spread", "2").build();
        Optional<LeaseManager> leases = settings.openLeases(Clock.systemUTC());
        assertThat(leases).isPresent();
        try (LeaseManager manager = leases.get();
             Leasebox drain = settings.applyTo(Leasebox.drain(ds), leases).provider(provider).build()) {
            assertThat(drain.claimStore()).isInstanceOf(LeasedOutboxClaimStore.class);
            drain.engine().drainUntilIdle(20);
        }
        assertThat(delivered).hasSize(12);
    }

    @Test
    void aBackendThatCannotBeOpenedSpeaksInTheUsersKeys() {
        LeaseboxSettings settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS)
                .set("backend", "memory").set("memory", "nowhere").build();
        assertThatThrownBy(() -> settings.openLeases(Clock.systemUTC())).isInstanceOf(LeaseManagerException.class)
                .hasMessage("nothing at nowhere within 10s: check --memory");
    }
}
