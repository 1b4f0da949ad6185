package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.metrics.DrainMetrics;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testing.Crash;
import dev.leasebox.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A claim of a row that still carries an earlier claim, expired and never completed, is told as a takeover by
 * the worker that makes it (decision 0040), and no other claim is: the {@code database} backend (read in its
 * claim statement), recorded row leases (from the candidate read) and a whole drain counting them in
 * {@code leasebox.claims{event=taken_over}}, and in the table's count (V8, decision 0046) that any console
 * reads. Run against each database by a subclass; every test has a table of its own.
 */
abstract class TakeoverScenarios {

    private static final Duration LEASE = Duration.ofSeconds(30);

    protected final MutableClock clock = MutableClock.startingAt2026();

    protected abstract DataSource dataSource();

    protected abstract String schema();

    protected abstract DatabaseKind kind();

    private TableName table() {
        return TestTables.fresh(dataSource(), kind(), schema());
    }

    private JdbcOutboxStore store(TableName table) {
        return JdbcOutboxStore.builder(dataSource()).table(table).clock(clock).open();
    }

    private static List<Long> enqueue(JdbcOutboxStore store, int count) {
        return IntStream.range(0, count).mapToObj(i -> store.enqueue(OutboxMessage.of("t",
                ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))).id()).toList();
    }

    /** The takeovers a store reports, in order. */
    private static final class Takeovers implements ClaimLossListener {
        final List<Set<Long>> reported = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void claimsLost(Set<Long> entryIds, String cause) {
        }

        @Override
        public void claimsTakenOver(Set<Long> entryIds) {
            reported.add(entryIds);
        }

        Set<Long> all() {
            Set<Long> ids = new java.util.TreeSet<>();
            reported.forEach(ids::addAll);
            return ids;
        }
    }

    private static List<OutboxClaim> claim(OutboxClaimStore store, String owner, int batch) {
        return store.claim(ClaimSelection.ELIGIBLE, new ClaimRequest(owner, batch, LEASE));
    }

    private static void deliver(OutboxClaimStore store, List<OutboxClaim> claims) {
        claims.forEach(c -> store.complete(c, new Completion.Delivered(dev.leasebox.outbox.EmissionResult.at(
                java.time.Instant.EPOCH))));
    }

    @Test
    void theDatabaseBackendTellsAClaimThatExpiredUnfinishedAsTakenOverByTheNextClaim() {
        JdbcOutboxStore store = store(table());
        Takeovers takeovers = new Takeovers();
        store.addClaimLossListener(takeovers);
        List<Long> ids = enqueue(store, 2);

        List<OutboxClaim> first = claim(store, "worker-a", 1);
        assertThat(first).extracting(OutboxClaim::entryId).containsExactly(ids.get(0));
        clock.advance(LEASE.plusSeconds(1)); // worker-a neither completed nor renewed: its claim expired on the row

        List<OutboxClaim> second = claim(store, "worker-b", 2);
        assertThat(second).extracting(OutboxClaim::entryId).containsExactlyElementsOf(ids);
        assertThat(takeovers.reported).containsExactly(Set.of(ids.get(0)));

        deliver(store, second);
        assertThat(claim(store, "worker-b", 2)).isEmpty();
        assertThat(takeovers.all()).containsExactly(ids.get(0));
    }

    @Test
    void theDatabaseBackendTellsNoTakeoverOfRowsCompletedReleasedOrRetried() {
        JdbcOutboxStore store = store(table());
        Takeovers takeovers = new Takeovers();
        store.addClaimLossListener(takeovers);
        enqueue(store, 3);

        List<OutboxClaim> first = claim(store, "worker-a", 3);
        store.complete(first.get(0), new Completion.Failed(EmissionError.retryable("503", "unavailable"), Optional.of(clock.instant())));
        store.complete(first.get(1), new Completion.Released("shutting down"));
        store.complete(first.get(2), new Completion.Failed(EmissionError.retryable("503", "unavailable"), Optional.of(clock.instant())));
        clock.advance(LEASE.plusSeconds(1)); // past the old expiry: a completed claim leaves nothing to take over

        assertThat(claim(store, "worker-b", 3)).hasSize(3);
        assertThat(takeovers.reported).isEmpty();
    }

    @Test
    void recordedRowLeasesTellTheRowsWhoseLapsedClaimTheyRecordedOver() {
        TableName table = table();
        InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);
        JdbcOutboxStore rowsOfA = store(table);
        JdbcOutboxStore rowsOfB = store(table);
        LeasedOutboxClaimStore workerA = LeasedOutboxClaimStore.open(rowsOfA, coordinator, clock);
        LeasedOutboxClaimStore workerB = LeasedOutboxClaimStore.open(rowsOfB, coordinator, clock);
        Takeovers takeoversByA = new Takeovers();
        Takeovers takeoversByB = new Takeovers();
        workerA.addClaimLossListener(takeoversByA);
        workerB.addClaimLossListener(takeoversByB);
        List<Long> ids = enqueue(rowsOfA, 3);

        List<OutboxClaim> held = claim(workerA, "worker-a", 2);
        assertThat(held).hasSize(2);
        deliver(workerA, held.subList(0, 1)); // one completed; the other left on its row, as by a killed worker
        clock.advance(LEASE.plusSeconds(1)); // its lease and its row's claim expire

        List<OutboxClaim> taken = claim(workerB, "worker-b", 3);
        assertThat(taken).extracting(OutboxClaim::entryId).containsExactlyInAnyOrderElementsOf(
                ids.stream().filter(id -> id != held.get(0).entryId()).toList());
        assertThat(takeoversByB.all()).containsExactly(held.get(1).entryId());
        assertThat(takeoversByA.reported).isEmpty();

        deliver(workerB, taken);
        enqueue(rowsOfA, 2);
        List<OutboxClaim> fresh = claim(workerA, "worker-a", 2);
        workerA.completeAll(fresh.stream().map(c -> new dev.leasebox.outbox.ClaimCompletion(c,
                new Completion.Failed(EmissionError.retryable("503", "unavailable"), Optional.of(clock.instant())))).toList());
        assertThat(claim(workerB, "worker-b", 2)).hasSize(2); // retries of completed claims: no takeover
        assertThat(takeoversByB.reported).hasSize(1);
        assertThat(takeoversByA.reported).isEmpty();
    }

    @Test
    void aDrainCountsTheClaimsOfAHaltedWorkerItTakesOverInItsMetrics() throws Exception {
        TableName table = table();
        CountDownLatch held = new CountDownLatch(5);
        CountDownLatch never = new CountDownLatch(1);
        Set<String> deliveredByB = ConcurrentHashMap.newKeySet();
        try (Leasebox doomed = Leasebox.drain(dataSource()).table(table)
                .options(DrainOptions.builder().owner("worker-doomed").batchSize(5).leaseDuration(Duration.ofSeconds(1))
                        .renewalInterval(Duration.ofMillis(300)).claimSafetyMargin(Duration.ofMillis(100))
                        .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .provider(envelope -> {
                    held.countDown();
                    never.await(60, TimeUnit.SECONDS); // emits, and never hears back: as a receiver that got it
                    return ProviderOutcome.delivered();
                }).build()) {
            JdbcOutboxStore writer = store(table);
            enqueue(writer, 5);
            doomed.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> held.getCount() == 4); // a batch of 5 claimed, one emitting
            Crash.halt(doomed); // as kill -9: no completion, release or renewal; its 5 claims stay on their rows

            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            DrainMetrics metrics = new DrainMetrics(registry);
            try (Leasebox healthy = Leasebox.drain(dataSource()).table(table)
                    .options(DrainOptions.builder().owner("worker-healthy").batchSize(10)
                            .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                    .listener(DrainListener.all(metrics))
                    .provider(envelope -> {
                        deliveredByB.add(envelope.idempotencyKey());
                        return ProviderOutcome.delivered();
                    }).build()) {
                healthy.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> deliveredByB.size() == 5);
                assertThat(metrics.takenOverTotal()).isEqualTo(5);
                assertThat(registry.get("leasebox.claims").tag("event", "taken_over").counter().count()).isEqualTo(5.0);
                await().atMost(Duration.ofSeconds(30)).until(() -> tableCount(table), count -> count == 5);

                enqueue(writer, 3); // fresh rows, claimed normally
                await().atMost(Duration.ofSeconds(30)).until(() -> deliveredByB.size() == 8);
                assertThat(metrics.takenOverTotal()).isEqualTo(5);
            }
            assertThat(tableCount(table)).as("the table's count after the healthy worker stopped").isEqualTo(5);
        } finally {
            never.countDown();
        }
    }

    /**
     * A heartbeat that fails while adding takeovers (here the column renamed away under it, then back) adds
     * nothing, keeps the count, and a later heartbeat adds it once: nothing lost, nothing counted twice.
     */
    @Test
    void takeoversAHeartbeatFailedToAddAreAddedByALaterOneOnce() throws Exception {
        TableName table = table();
        JdbcOutboxStore rows = store(table);
        try (ClaimStyleRegistry registry = ClaimStyleRegistry.join(dataSource(), rows, "worker-b",
                ClaimStyleRegistry.ClaimStyle.recorded("recorded claims"), Duration.ofSeconds(3), why -> { })) {
            ClaimLossListener takeovers = registry.takeovers();
            takeovers.claimsTakenOver(Set.of(1L));
            await().atMost(Duration.ofSeconds(30)).until(() -> tableCount(table), count -> count == 1);

            String styles = table.qualified() + "_claim_styles";
            execute("ALTER TABLE " + styles + " RENAME COLUMN taken_over TO taken_over_away");
            takeovers.claimsTakenOver(Set.of(2L, 3L, 4L)); // the heartbeat it asks for fails in its UPDATE
            await().atMost(Duration.ofSeconds(30)).until(() -> registry.tableCountsTakeovers().equals(Optional.of(false)));
            assertThat(registry.unwrittenTakeovers()).as("kept for a later heartbeat").isEqualTo(3);
            execute("ALTER TABLE " + styles + " RENAME COLUMN taken_over_away TO taken_over");
            await().atMost(Duration.ofSeconds(30)).until(() -> tableCount(table), count -> count == 4);
            await().atMost(Duration.ofSeconds(30)).until(() -> registry.unwrittenTakeovers() == 0); // lowered after the commit
            takeovers.claimsTakenOver(Set.of(5L));
        }
        assertThat(tableCount(table)).as("the last takeover added when the registry closed, none twice").isEqualTo(5);
    }

    private long tableCount(TableName table) {
        return new OutboxTableStatus(dataSource(), table).takenOverTotal().orElse(-1);
    }

    private void execute(String sql) throws java.sql.SQLException {
        try (java.sql.Connection c = dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Rows claimed again after their claim was extended in time are no takeover either. */
    @Test
    void aRenewedClaimIsNotTakenOver() {
        JdbcOutboxStore store = store(table());
        Takeovers takeovers = new Takeovers();
        store.addClaimLossListener(takeovers);
        enqueue(store, 1);
        List<OutboxClaim> first = claim(store, "worker-a", 1);
        clock.advance(LEASE.minusSeconds(1));
        assertThat(store.renewClaims(first, LEASE)).hasSize(1);
        clock.advance(Duration.ofSeconds(2)); // past the first expiry, not the renewed one
        assertThat(claim(store, "worker-b", 1)).isEmpty();
        OutboxEntry row = store.find(first.get(0).entryId()).orElseThrow();
        assertThat(row.claimOwner()).contains("worker-a");
        assertThat(takeovers.reported).isEmpty();
    }
}
