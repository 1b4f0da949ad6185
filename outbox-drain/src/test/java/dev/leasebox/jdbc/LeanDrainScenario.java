package dev.leasebox.jdbc;

import dev.leasebox.testing.Crash;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Four lean workers ({@link ClaimMode#LEAN}, each its own pool and lease manager, like separate nodes) drain
 * one PostgreSQL outbox through a real coordinator; one of them is halted, as a crash would stop it, right
 * after its 20th emission, in the middle of a batch. Used by the lean drain ITs of every backend.
 *
 * <p>Proves: every entry ends DELIVERED with exactly one accepted completion (attempt_count 1,
 * fence_high_water = the fence that completed it); and what duplicates is exactly the set of entries the
 * halted worker emitted and never completed: each of those was emitted again by another worker under a higher
 * fence once the halted worker's lease had lapsed, and no entry emitted by a live worker was ever emitted twice.
 */
public final class LeanDrainScenario {

    private static final int WORKERS = 4;
    private static final int BATCH = 50;
    private static final int VICTIM_EMISSIONS = 20;

    private LeanDrainScenario() {
    }

    private record Emission(long entryId, String owner, long fence, long atNanos) {
    }

    /**
     * Runs the scenario on a fresh table in {@code schema}: {@code managers} opens one worker's lease manager
     * for a namespace (each worker its own, as separate nodes); {@code forgetNamespace} deletes what the run
     * left on the coordinator.
     */
    public static void run(HikariDataSource admin, String schema, ReleaseAfterCompletion release,
                           Function<String, LeaseManager> managers, Consumer<String> forgetNamespace, Duration lease,
                           int entries) throws Exception {
        run(admin, schema, release, managers, forgetNamespace, lease, entries, lease.minus(Duration.ofMillis(500)));
    }

    /**
     * As {@link #run(HikariDataSource, String, ReleaseAfterCompletion, Function, Consumer, Duration, int)}, with
     * the least time between the halted worker's emission of an entry and its emission again: a lease granted
     * at the claim lapses no sooner than the lease less 500 ms; a row leased under a group lease confirmed up to
     * half a lease earlier ({@code GroupedLeaseManager}) lapses up to half a lease sooner.
     */
    public static void run(HikariDataSource admin, String schema, ReleaseAfterCompletion release,
                           Function<String, LeaseManager> managers, Consumer<String> forgetNamespace, Duration lease,
                           int entries, Duration earliestReemission) throws Exception {
        final Duration LEASE = lease;
        final int ENTRIES = entries;
        Clock clock = dev.leasebox.lease.MonotonicClock.system(); // the database's clock judges, as in production
        TableName table = TestTables.fresh(admin, DatabaseKind.POSTGRESQL, schema);
        JdbcOutboxStore writerStore = JdbcOutboxStore.builder(admin).table(table).clock(clock).open();
        try (Connection c = admin.getConnection()) {
            c.setAutoCommit(false);
            OutboxWriter writer = writerStore.writer();
            for (int i = 0; i < ENTRIES; i++) {
                writer.enqueue(c, OutboxMessage.of("lean.test", Integer.toString(i).getBytes()));
            }
            c.commit();
        }
        String namespace = "lean-it-" + UUID.randomUUID().toString().substring(0, 8);
        ConcurrentLinkedQueue<Emission> emissions = new ConcurrentLinkedQueue<>();
        Map<Long, List<String>> accepted = new ConcurrentHashMap<>();
        Map<Long, Long> acceptedFence = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch victimMidBatch = new CountDownLatch(1);
        CountDownLatch victimStarted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger victimEmitted = new AtomicInteger();
        String victim = "worker-0";

        List<AutoCloseable> resources = new ArrayList<>();
        List<OutboxDrain> drains = new ArrayList<>();
        boolean victimHalted = false;
        try {
            for (int w = 0; w < WORKERS; w++) {
                String owner = "worker-" + w;
                HikariDataSource pool = PostgreSqlTestServer.dataSource(3);
                resources.add(pool);
                JdbcOutboxStore jdbc = JdbcOutboxStore.builder(pool).table(table).localClock(clock).candidateSpread(WORKERS + 1).open();
                LeaseManager manager = managers.apply(namespace);
                resources.add(manager);
                LeasedOutboxClaimStore store = LeasedOutboxClaimStore.builder(jdbc, manager, clock)
                        .claimMode(ClaimMode.LEAN).releaseAfterCompletion(release).open();
                boolean isVictim = owner.equals(victim);
                OutboxDrain drain = OutboxDrain.builder().store(store).clock(clock)
                        .options(DrainOptions.builder().owner(owner).batchSize(BATCH).leaseDuration(LEASE)
                                .idlePolling(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                        .provider(envelope -> {
                            emissions.add(new Emission(envelope.entryId(), envelope.owner(), envelope.fence().orElseThrow(),
                                    System.nanoTime()));
                            if (isVictim) {
                                victimStarted.countDown();
                            }
                            if (isVictim && victimEmitted.incrementAndGet() == VICTIM_EMISSIONS) {
                                victimMidBatch.countDown();
                                never.await(); // until the halt interrupts it: this emission's result is never written
                            }
                            return ProviderOutcome.delivered();
                        })
                        .listener(new DrainListener() {
                            @Override
                            public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
                                accepted.computeIfAbsent(entryId, id -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(owner);
                                acceptedFence.put(entryId, ((CompletionOutcome.Completed) outcome).entry().fenceHighWater());
                            }

                            @Override
                            public void completionRefused(long entryId, Completion completion, CompletionOutcome refusal) {
                                refused.incrementAndGet();
                            }
                        }).build();
                drains.add(drain);
            }
            // The victim starts first and the others join once it holds a batch: three workers could otherwise
            // drain the table before the victim's first claim, and the scenario would halt nobody mid-batch.
            drains.get(0).start();
            assertThat(victimStarted.await(1, TimeUnit.MINUTES)).as("the victim emitted its first entry").isTrue();
            drains.subList(1, WORKERS).forEach(OutboxDrain::start);
            assertThat(victimMidBatch.await(2, TimeUnit.MINUTES)).as("the victim reached its 20th emission").isTrue();
            Crash.halt(drains.get(0));
            victimHalted = true;
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                    .until(() -> count(admin, table, "status = 'DELIVERED'") == ENTRIES);
        } finally {
            if (!victimHalted && !drains.isEmpty()) {
                Crash.halt(drains.get(0)); // a scenario that failed before the halt leaves no worker on a closed pool
            }
            for (int i = drains.size() - 1; i >= 1; i--) {
                drains.get(i).close();
            }
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
            forgetNamespace.accept(namespace);
        }

        assertThat(count(admin, table, "status = 'DELIVERED' AND attempt_count = 1 AND claim_token IS NULL"))
                .as("every entry DELIVERED once, no claim left on a row").isEqualTo(ENTRIES);
        assertThat(accepted).hasSize(ENTRIES);
        assertThat(accepted.values()).as("one accepted completion per entry").allSatisfy(owners -> assertThat(owners).hasSize(1));
        assertThat(fenceHighWaters(admin, table)).as("each row's high-water mark is the fence that completed it")
                .isEqualTo(acceptedFence);

        Map<Long, List<Emission>> byEntry = emissions.stream().collect(Collectors.groupingBy(Emission::entryId));
        assertThat(byEntry).as("every entry emitted").hasSize(ENTRIES);
        Set<Long> victimNeverCompleted = new HashSet<>();
        emissions.stream().filter(e -> e.owner().equals(victim)).map(Emission::entryId)
                .filter(id -> !accepted.get(id).contains(victim)).forEach(victimNeverCompleted::add);
        Map<Long, List<Emission>> duplicated = new HashMap<>();
        byEntry.forEach((id, list) -> {
            if (list.size() > 1) {
                duplicated.put(id, list);
            }
        });
        assertThat(victimNeverCompleted).as("the halted worker emitted entries it never completed").isNotEmpty();
        assertThat(duplicated.keySet()).as("what duplicated is exactly what the halted worker emitted and never completed")
                .isEqualTo(victimNeverCompleted);
        for (Entry<Long, List<Emission>> e : duplicated.entrySet()) {
            List<Emission> list = new ArrayList<>(e.getValue());
            list.sort((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
            assertThat(list).as("entry %d", e.getKey()).hasSize(2);
            assertThat(list.get(0).owner()).isEqualTo(victim);
            assertThat(list.get(1).owner()).isNotEqualTo(victim);
            assertThat(list.get(1).fence()).isGreaterThan(list.get(0).fence());
            assertThat(Duration.ofNanos(list.get(1).atNanos() - list.get(0).atNanos()))
                    .as("entry %d emitted again only after the halted worker's lease could have lapsed", e.getKey())
                    .isGreaterThan(earliestReemission);
        }
        assertThat(refused.get()).as("no completion refused: nobody but the halted worker lost a lease").isZero();
    }

    private static long count(HikariDataSource admin, TableName table, String where) throws Exception {
        try (Connection c = admin.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table.qualified() + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Map<Long, Long> fenceHighWaters(HikariDataSource admin, TableName table) throws Exception {
        Map<Long, Long> marks = new HashMap<>();
        try (Connection c = admin.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, fence_high_water FROM " + table.qualified())) {
            while (rs.next()) {
                marks.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return marks;
    }
}
