package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight worker threads drain one outbox of 2,000 entries, each a minimal
 * claim → emit (recorded) → completeAll loop, through the {@code database} backend and through
 * {@link LeasedOutboxClaimStore} with the in-memory lease manager. About one entry in 97 is
 * "crashed on": emitted, then abandoned without completion, so it is reclaimed after expiry.
 * A worker that finds nothing eligible while entries remain moves the shared clock past the lease
 * (which also expires claims other workers still hold: those duplicates are across expiry too).
 *
 * <p>Proves: every entry ends DELIVERED; per entry, tokens strictly grow; no entry is emitted by
 * two holders within one lease window (each later emission's claim was made at or after the
 * earlier claim's expiry); duplicates happen only across expiry, and are counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConcurrentDrainScenarios {

    /** A pool on the database under test, of {@code size} connections. */
    protected abstract HikariDataSource openDataSource(int size);

    /** A fresh schema (or database) for this class's tables. */
    protected abstract String newSchema(HikariDataSource dataSource);

    protected abstract void dropSchema(HikariDataSource dataSource, String schema);

    protected abstract DatabaseKind kind();

    private static final int ENTRIES = 2_000;
    private static final int WORKERS = 8;
    private static final Duration LEASE = Duration.ofSeconds(30);

    private HikariDataSource ds;
    private String schema;

    private record Emission(long entryId, String owner, long token, Instant claimedAt, Instant expiresAt) {
    }

    @BeforeAll
    void createSchema() {
        ds = openDataSource(WORKERS + 2);
        schema = newSchema(ds);
    }

    @AfterAll
    void dropSchema() {
        if (ds != null) {
            dropSchema(ds, schema);
            ds.close();
        }
    }

    @Test
    void eightWorkersDrainThroughTheDatabaseBackend() throws Exception {
        MutableClock clock = MutableClock.startingAt2026();
        JdbcOutboxStore store = JdbcOutboxStore.builder(ds).table(TestTables.fresh(ds, kind(), schema))
                .clock(clock).open();
        drain(store, clock, () -> store, "database");
    }

    @Test
    void eightWorkersDrainThroughLeasedClaimsOverTheJdbcStore() throws Exception {
        MutableClock clock = MutableClock.startingAt2026();
        JdbcOutboxStore store = JdbcOutboxStore.builder(ds).table(TestTables.fresh(ds, kind(), schema))
                .clock(clock).candidateSpread(4).open();
        InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);
        drain(store, clock, () -> LeasedOutboxClaimStore.open(store, coordinator, clock), "leased(in-memory)");
    }

    private void drain(JdbcOutboxStore store, MutableClock clock, Supplier<OutboxClaimStore> workerStore, String backend)
            throws Exception {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            OutboxWriter writer = store.writer();
            for (int i = 0; i < ENTRIES; i++) {
                writer.enqueue(c, OutboxMessage.of("drain.test", Integer.toString(i).getBytes()));
            }
            c.commit();
        }
        ConcurrentLinkedQueue<Emission> emissions = new ConcurrentLinkedQueue<>();
        Set<Long> crashedOnce = ConcurrentHashMap.newKeySet();
        AtomicInteger refusedCompletions = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        long began;
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                String owner = "worker-" + w;
                OutboxClaimStore claims = workerStore.get();
                workers.add(pool.submit(() -> {
                    start.await();
                    while (System.nanoTime() < deadline) {
                        List<OutboxClaim> batch = claims.claim(ClaimSelection.ELIGIBLE, new ClaimRequest(owner, 25, LEASE));
                        if (batch.isEmpty()) {
                            if (undelivered(store) == 0) {
                                return null;
                            }
                            if (store.findPending(1).isEmpty()) {
                                clock.advance(LEASE); // all that is left is held, by crashed or slow holders
                            }
                            continue;
                        }
                        List<ClaimCompletion> completions = new ArrayList<>();
                        for (OutboxClaim claim : batch) {
                            emissions.add(new Emission(claim.entryId(), owner, claim.token(), claim.claimedAt(),
                                    claim.expiresAt()));
                            boolean crash = claim.entryId() % 97 == 0 && crashedOnce.add(claim.entryId());
                            if (!crash) {
                                completions.add(new ClaimCompletion(claim,
                                        new Completion.Delivered(EmissionResult.at(clock.instant()))));
                            }
                        }
                        for (CompletionOutcome outcome : claims.completeAll(completions)) {
                            if (!outcome.isCompleted()) {
                                refusedCompletions.incrementAndGet();
                            }
                        }
                    }
                    throw new AssertionError(owner + " did not finish within 3 minutes");
                }));
            }
            began = System.nanoTime();
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(4, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);

        assertThat(undelivered(store)).as("entries not DELIVERED").isZero();
        Map<Long, List<Emission>> byEntry = emissions.stream().collect(Collectors.groupingBy(Emission::entryId));
        assertThat(byEntry).as("entries emitted").hasSize(ENTRIES);
        int duplicates = 0;
        for (List<Emission> list : byEntry.values()) {
            list.sort(Comparator.comparingLong(Emission::token));
            for (int i = 1; i < list.size(); i++) {
                Emission earlier = list.get(i - 1);
                Emission later = list.get(i);
                assertThat(later.token()).as("tokens of entry %d strictly grow", later.entryId())
                        .isGreaterThan(earlier.token());
                assertThat(later.claimedAt()).as("entry %d: %s emitted within %s's lease window", later.entryId(),
                        later.owner(), earlier.owner()).isAfterOrEqualTo(earlier.expiresAt());
                duplicates++;
            }
        }
        assertThat(duplicates).as("each crashed-on entry is emitted again after expiry")
                .isGreaterThanOrEqualTo(crashedOnce.size());
        System.out.printf("[%s] %d entries, %d workers: %d emissions, %d duplicates across expiry (%d crashed on), "
                        + "%d refused completions, %d ms (%.0f entries/s)%n", backend, ENTRIES, WORKERS, emissions.size(),
                duplicates, crashedOnce.size(), refusedCompletions.get(), millis, ENTRIES * 1000.0 / Math.max(1, millis));
    }

    private long undelivered(JdbcOutboxStore store) throws Exception {
        return Long.parseLong(PostgreSqlSchemaIT.query(ds, "SELECT count(*) FROM " + store.table()
                + " WHERE status <> 'DELIVERED'").get(0));
    }
}
