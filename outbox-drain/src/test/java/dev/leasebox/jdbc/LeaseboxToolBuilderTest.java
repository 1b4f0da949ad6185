package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.metrics.MeteredLeaseManager;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testing.Crash;
import dev.leasebox.testing.LeaseboxToolBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the public builder offers and what only tools reach, on an in-memory H2 outbox: the hooks, the crash
 * halt, and the lease meters an application sets.
 */
class LeaseboxToolBuilderTest {

    private static final Set<String> HOOKS = Set.of("decorateClaimStore", "decorateFencedStore", "configureStore",
            "withoutClaimStyleRegistry", "decorateInTableLeases");

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
    void thePublicBuilderOffersNoTestHookAndTheEngineNoHalt() {
        assertThat(publicMethods(Leasebox.Builder.class)).doesNotContainAnyElementsOf(HOOKS)
                .contains("meterLeases", "onRegistryConflict", "listener");
        assertThat(publicMethods(LeaseboxToolBuilder.class))
                .contains("decorateClaimStore", "decorateFencedStore", "configureStore", "withoutClaimStyleRegistry");
        assertThat(publicMethods(OutboxDrain.class)).doesNotContain("halt");
    }

    @Test
    void theToolBuilderWrapsTheClaimStoreAndLeavesTheRegistryAlone() throws Exception {
        AtomicInteger claimCalls = new AtomicInteger();
        try (Leasebox drain = LeaseboxToolBuilder.drain(ds).withoutClaimStyleRegistry()
                .decorateClaimStore(store -> new ForwardingOutboxClaimStore(store) {
                    @Override
                    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
                        claimCalls.incrementAndGet();
                        return super.claim(selection, request);
                    }
                })
                .table(table).options(DrainOptions.builder().owner("tool").build()).provider(provider).build()) {
            drain.engine().drainUntilIdle(10);
            assertThat(registrations("tool")).as("no registration").isZero();
        }
        assertThat(delivered).hasSize(12);
        assertThat(claimCalls).as("every claim went through the wrapper").hasPositiveValue();
        try (Leasebox registered = Leasebox.drain(ds).table(table).options(DrainOptions.builder().owner("product").build())
                .provider(provider).build()) {
            assertThat(registrations("product")).as("the product builder's drain registers").isEqualTo(1);
        }
    }

    @Test
    void aCrashHaltLeavesTheDrainsClaimsOnTheirRows() throws Exception {
        CountDownLatch emitting = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        try (Leasebox drain = Leasebox.drain(ds).table(table)
                .options(DrainOptions.builder().owner("doomed").batchSize(5).leaseDuration(Duration.ofMinutes(5)).build())
                .provider(envelope -> {
                    emitting.countDown();
                    never.await(60, TimeUnit.SECONDS); // until the halt interrupts it
                    return ProviderOutcome.delivered();
                }).build()) {
            drain.start();
            assertThat(emitting.await(30, TimeUnit.SECONDS)).isTrue();
            Crash.halt(drain);
            assertThat(drain.engine().state()).isEqualTo(OutboxDrain.State.CLOSED);
            assertThat(count("SELECT count(*) FROM " + table + " WHERE claim_owner = 'doomed'"))
                    .as("a halted drain completes and releases nothing").isEqualTo(5);
        }
    }

    @Test
    void meterLeasesCountsTheGivenManagersLeasesOnceWhetherOrNotItIsMeteredAlready() {
        MeterRegistry plain = new SimpleMeterRegistry();
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC());
             Leasebox drain = Leasebox.drain(ds).table(table).leases(leases).meterLeases(plain).provider(provider).build()) {
            drain.engine().drainUntilIdle(20);
        }
        assertThat(granted(plain)).isEqualTo(12);

        closeDatabase();
        openDatabase();
        MeterRegistry registry = new SimpleMeterRegistry();
        try (InMemoryLeaseManager leases = new InMemoryLeaseManager(Clock.systemUTC());
             Leasebox drain = Leasebox.drain(ds).table(table).leases(new MeteredLeaseManager(leases, registry))
                     .meterLeases(registry).provider(provider).build()) {
            drain.engine().drainUntilIdle(20);
        }
        assertThat(granted(registry)).as("metered once, not again by the drain").isEqualTo(12);
    }

    private static double granted(MeterRegistry registry) {
        return registry.get("leasebox.leases").tag("event", "granted").counter().count();
    }

    private static Set<String> publicMethods(Class<?> type) {
        return Arrays.stream(type.getMethods()).filter(m -> Modifier.isPublic(m.getModifiers())).map(Method::getName)
                .collect(Collectors.toSet());
    }

    private long registrations(String owner) throws Exception {
        return count("SELECT count(*) FROM " + table + "_claim_styles WHERE owner = '" + owner + "'");
    }

    private long count(String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
