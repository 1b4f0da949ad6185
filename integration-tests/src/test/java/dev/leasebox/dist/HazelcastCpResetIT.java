package dev.leasebox.dist;

import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Hazelcast CP group loses its majority and is reset, the only way back in the community edition:
 * the reset discards the Raft logs, so fences start again low and a fresh manager is granted rows
 * under fences at or below those they carried before (decision 0035). Only the store's per-row fence
 * high-water mark stands between those fences and a stale write. Against PostgreSQL and three
 * embedded CP members, with drains built through {@code Leasebox.drain(…)} (recorded claims):
 *
 * <ol>
 *   <li>Worker A drains part of the outbox; its endpoint fails every fifth row (retried later, so
 *       those rows stay pending with A's fences as their marks), and it is then held inside an
 *       emission with a batch of claims in flight.</li>
 *   <li>Two of the three CP members are terminated: A's leases lapse and are reported lost. Two
 *       replacements join and the CP Subsystem is reset; A's held emission returns.</li>
 *   <li>Worker B, a fresh manager after the reset, is granted a marked row under a fence at or below
 *       its mark, which the store refuses, row untouched; then B drains the outbox.</li>
 * </ol>
 *
 * Every answer the store gave is kept in a {@link FenceLedger}, and checked in order: a claim was
 * recorded only under a fence above every fence recorded on its row before, each fence refused was at
 * or below the row's mark, every completion written was under the row's newest fence, and each row was
 * delivered exactly once and ends with its newest fence as its mark. A's late completions of its
 * in-flight rows, sent while B emits them, are refused; A wrote nothing after the outage. The rows
 * refused while B's fences stayed below their marks are drained once those fences pass them: the
 * group's Raft log index, which every lock, unlock and session heartbeat advances.
 *
 * <p>Rows are leased one lease per row ({@code row-groups=0}): every lock and unlock moves the Raft
 * index, so A's marks rise well above the index a reset group starts from within a few seconds, and
 * B's refused grants move B's fences past them within a few more. Grouped (Hazelcast's default), A's
 * rows share a few group grants, its marks stay at a few units (3 in a trial) and the first fence after
 * the reset (7) is already above them: nothing would be refused.
 */
class HazelcastCpResetIT {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastCpResetIT.class);
    private static final int ROWS = 200;
    /** Rows worker A delivers before it is held. */
    private static final int DELIVERED_BY_A = 60;
    /** At most the CP session TTL (10 s) minus its heartbeat (1 s). */
    private static final Duration LEASE = Duration.ofSeconds(4);
    /** A row whose emission worker A failed is due again this long after. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    private static final String WORKER_A = "worker-a";
    private static final String WORKER_B = "worker-b";
    private static final String LATE_A = "worker-a, late";
    private static final String REPLAY = "replayed fence";

    private final String namespace = "cp-reset-" + UUID.randomUUID().toString().substring(0, 8);
    private final FenceLedger ledger = new FenceLedger();
    private final List<Leasebox> drains = new ArrayList<>();
    private final List<LeaseManager> managers = new ArrayList<>();
    private final CountDownLatch aHeld = new CountDownLatch(1);
    private final CountDownLatch aReleased = new CountDownLatch(1);
    private volatile boolean holdA;
    private HikariDataSource admin;
    private HikariDataSource outbox;
    private String schema;
    private TableName table;
    private CpMembers cluster;

    @BeforeEach
    void start() {
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
        table = new TableName(schema, "cp_reset_outbox");
        new LeaseboxSchema(DatabaseKind.POSTGRESQL, table).applyAll(admin);
        JdbcOutboxStore rows = JdbcOutboxStore.builder(admin).table(table).open();
        for (int i = 0; i < ROWS; i++) {
            rows.enqueue(OutboxMessage.of("cp-reset", new byte[0]).withIdempotencyKey("e-" + i));
        }
        outbox = PostgreSqlTestServer.dataSource(8);
        cluster = CpMembers.startThree();
    }

    @AfterEach
    void stop() {
        aReleased.countDown();
        drains.forEach(Leasebox::close);
        for (LeaseManager manager : managers) {
            try {
                manager.close(); // while the cluster runs: unlocks sent to terminated members wait out the operation timeout
            } catch (RuntimeException ignored) {
                // closing on the way out; the assertions already ran
            }
        }
        if (cluster != null) {
            cluster.close();
        }
        if (outbox != null) {
            outbox.close();
        }
        PostgreSqlTestServer.dropSchema(admin, schema);
        admin.close();
    }

    @Test
    void freshFencesAfterAResetAreRefusedByTheRowsMarksAndTheDrainRecovers() throws Exception {
        // 1. Worker A drains part of the outbox, failing every fifth row, then is held with claims in flight.
        Recorder a = new Recorder();
        LeaseManager aLeases = open(Map.of("operation-timeout", "3s"));
        Leasebox drainA = drain(WORKER_A, aLeases, a, envelope -> {
            if (holdA) {
                aHeld.countDown();
                aReleased.await();
                return ProviderOutcome.delivered();
            }
            return envelope.entryId() % 5 == 0 ? ProviderOutcome.retryable("worker A's endpoint refused it")
                    : ProviderOutcome.delivered();
        });
        drainA.start();
        await("worker A delivered " + DELIVERED_BY_A + " rows").atMost(Duration.ofSeconds(30))
                .until(() -> rows().values().stream().filter(Row::delivered).count() >= DELIVERED_BY_A);
        holdA = true;
        assertThat(aHeld.await(30, TimeUnit.SECONDS)).as("worker A held inside an emission").isTrue();
        Map<Long, Row> atOutage = rows();
        Set<Long> inFlight = new HashSet<>();
        atOutage.values().stream().filter(r -> WORKER_A.equals(r.claimOwner()) && !r.delivered()).forEach(r -> inFlight.add(r.id()));
        long marked = atOutage.values().stream().filter(r -> !r.delivered() && r.fenceHighWater() > 0).count();
        long highestFenceOfA = a.claims.values().stream().mapToLong(OutboxClaim::token).max().orElseThrow();
        assertThat(inFlight).as("worker A's claims in flight").isNotEmpty();

        // 2. The CP group loses its majority; two replacements join and the CP Subsystem is reset.
        int eventsAtOutage = ledger.events().size();
        cluster.terminate(1, 2);
        await("worker A's in-flight claims reported lost").atMost(LEASE.plusSeconds(15))
                .untilAsserted(() -> assertThat(a.lost).containsAll(inFlight));
        long resetStarted = System.nanoTime();
        cluster.startReplacements(2);
        cluster.resetCpSubsystem(Duration.ofMinutes(1));
        Duration resetTook = Duration.ofNanos(System.nanoTime() - resetStarted);
        aReleased.countDown();
        await("worker A abandoned its in-flight claims").atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(a.abandoned).containsAll(inFlight));
        drainA.close();
        aLeases.close();
        assertThat(ledger.events().subList(eventsAtOutage, ledger.events().size()))
                .as("what the store wrote for worker A after the outage")
                .noneMatch(e -> e.worker().equals(WORKER_A) && e instanceof FenceLedger.Completed);

        // 3. A fresh manager after the reset: its fences start again low, and the store refuses them.
        Row probed = highestMarkedEligibleRow();
        LeaseManager bLeases = await("a manager on the reset cluster").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> open(Map.of()), manager -> true);
        List<Lease> probe = await("a grant after the reset").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> bLeases.acquire(new LeaseRequest(List.of(LeasedOutboxClaimStore.leaseKey(probed.id())), WORKER_B, LEASE)),
                        granted -> !granted.isEmpty());
        long firstFenceOfB = probe.get(0).fence();
        assertThat(firstFenceOfB).as("the first fence granted after the reset, on row %d marked %d (A's highest fence %d)",
                probed.id(), probed.fenceHighWater(), highestFenceOfA).isLessThanOrEqualTo(probed.fenceHighWater());
        FencedOutboxStore direct = JdbcOutboxStore.builder(outbox).table(table).useClaimLeases(true).open();
        Instant now = Instant.now();
        ClaimRecording replay = ledger.recording(REPLAY, direct).recordClaims(ClaimSelection.ELIGIBLE,
                List.of(new ClaimGrant(probed.id(), WORKER_B, firstFenceOfB, now, now.plus(LEASE))));
        assertThat(replay.recorded()).as("claims recorded under a fence at or below the row's mark").isEmpty();
        assertThat(replay.refused()).singleElement().satisfies(refusal -> {
            assertThat(refusal.reason()).isEqualTo(ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER);
            assertThat(refusal.fenceHighWater()).isEqualTo(probed.fenceHighWater());
        });
        assertThat(rows().get(probed.id())).as("row %d after the refused claim", probed.id()).isEqualTo(probed);
        bLeases.release(probe);

        // 4. Worker B drains; A's late completions of its in-flight rows arrive while B emits them.
        Recorder b = new Recorder();
        FencedOutboxStore lateA = ledger.recording(LATE_A, direct);
        Map<Long, CompletionOutcome> lateCompletions = new ConcurrentHashMap<>();
        long drainStarted = System.nanoTime();
        Leasebox drainB = drain(WORKER_B, bLeases, b, envelope -> {
            if (inFlight.contains(envelope.entryId())) {
                OutboxClaim stale = a.claims.get(envelope.entryId());
                lateCompletions.computeIfAbsent(envelope.entryId(), id -> lateA.completeAll(List.of(new ClaimCompletion(stale,
                        new Completion.Delivered(EmissionResult.at(Instant.now()))))).get(0));
            }
            return ProviderOutcome.delivered();
        });
        drainB.start();
        await("every row delivered after the reset").atMost(Duration.ofSeconds(45))
                .until(() -> rows().values().stream().allMatch(Row::delivered));
        Duration drainTook = Duration.ofNanos(System.nanoTime() - drainStarted);
        drainB.close();

        Map<Long, Long> marks = checkLedger(ledger.events());
        Map<Long, Row> end = rows();
        assertThat(end).hasSize(ROWS);
        end.values().forEach(row -> {
            assertThat(row.delivered()).as("row %d delivered", row.id()).isTrue();
            assertThat(row.claimToken()).as("row %d's claim cleared", row.id()).isNull();
            assertThat(row.fenceHighWater()).as("row %d's mark: the newest fence recorded on it", row.id()).isEqualTo(marks.get(row.id()));
        });
        assertThat(lateCompletions).as("worker A's late completions, sent while B emitted its rows").containsOnlyKeys(inFlight)
                .allSatisfy((id, outcome) -> assertThat(outcome.isCompleted()).as("A's late completion of row %d", id).isFalse());

        List<FenceLedger.Refused> refusedB = ledger.events().stream()
                .filter(e -> e.worker().equals(WORKER_B) && e instanceof FenceLedger.Refused r
                        && r.reason() == ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER)
                .map(FenceLedger.Refused.class::cast).toList();
        assertThat(refusedB).as("worker B's grants refused as not above their rows' marks").isNotEmpty();
        Set<Long> fencesOfA = new HashSet<>();
        ledger.events().stream().filter(e -> e.worker().equals(WORKER_A) && e instanceof FenceLedger.Recorded)
                .forEach(e -> fencesOfA.add(((FenceLedger.Recorded) e).token()));
        LOG.info("CP reset figures: {} rows; worker A delivered {} and held {} in flight, {} rows pending with a mark; A's highest "
                        + "fence {}; the reset took {} ms; B's first fence {}; B's grants refused as not above the mark: {} on {} rows "
                        + "(fences {}..{}, {} of them fences A had been granted exactly); B's accepted fences {}..{}; "
                        + "drained in {} ms; A's late completions: {}",
                ROWS, atOutage.values().stream().filter(Row::delivered).count(), inFlight.size(), marked, highestFenceOfA,
                resetTook.toMillis(), firstFenceOfB, refusedB.size(),
                refusedB.stream().map(FenceLedger.Refused::entryId).distinct().count(),
                refusedB.stream().mapToLong(FenceLedger.Refused::token).min().orElse(0),
                refusedB.stream().mapToLong(FenceLedger.Refused::token).max().orElse(0),
                refusedB.stream().filter(r -> fencesOfA.contains(r.token())).count(),
                tokensOf(WORKER_B).stream().mapToLong(Long::longValue).min().orElse(0),
                tokensOf(WORKER_B).stream().mapToLong(Long::longValue).max().orElse(0),
                drainTook.toMillis(), lateCompletions.values().stream().map(o -> o.getClass().getSimpleName()).sorted().toList());
    }

    /**
     * Replays the store's answers in order and checks each against the marks recorded before it: a claim
     * recorded only above its row's mark, a fence refused only at or below it, a completion written only
     * under the row's newest fence, each row delivered once. Returns each row's mark at the end.
     */
    private static Map<Long, Long> checkLedger(List<FenceLedger.Event> events) {
        Map<Long, Long> marks = new TreeMap<>();
        Map<Long, Integer> deliveries = new TreeMap<>();
        for (FenceLedger.Event event : events) {
            long id = event.entryId();
            long mark = marks.getOrDefault(id, 0L);
            if (event instanceof FenceLedger.Recorded r) {
                assertThat(r.token()).as("%s's claim of row %d recorded under fence %d: above the row's mark %d",
                        r.worker(), id, r.token(), mark).isGreaterThan(mark);
                marks.put(id, r.token());
            } else if (event instanceof FenceLedger.Refused r && r.reason() == ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER) {
                assertThat(r.token()).as("%s's grant of row %d refused under fence %d", r.worker(), id, r.token())
                        .isLessThanOrEqualTo(mark);
                assertThat(r.fenceHighWater()).as("row %d's mark as the store read it", id).isEqualTo(mark);
            } else if (event instanceof FenceLedger.Completed c) {
                assertThat(c.token()).as("%s's %s of row %d written under fence %d: the row's newest fence",
                        c.worker(), c.completion().getClass().getSimpleName(), id, c.token()).isEqualTo(mark);
                if (c.completion() instanceof Completion.Delivered) {
                    deliveries.merge(id, 1, Integer::sum);
                }
            }
        }
        assertThat(deliveries).as("rows delivered, each once").hasSize(ROWS).allSatisfy((id, n) -> assertThat(n).isOne());
        return marks;
    }

    private List<Long> tokensOf(String worker) {
        return ledger.events().stream().filter(e -> e.worker().equals(worker) && e instanceof FenceLedger.Recorded)
                .map(e -> ((FenceLedger.Recorded) e).token()).toList();
    }

    /** A manager of this test's namespace on the cluster's running members, a lease per row (the drains ask for none either). */
    private LeaseManager open(Map<String, String> more) {
        Map<String, String> options = new LinkedHashMap<>(cluster.clientOptions());
        options.put(LeaseGrouping.GROUPS_OPTION, "0");
        options.putAll(more);
        LeaseManager manager = LeaseGrouping.open("hazelcast",
                new LeaseBackendSettings(cluster.address(), namespace, LEASE, options), MonotonicClock.system());
        managers.add(manager);
        return manager;
    }

    private Leasebox drain(String owner, LeaseManager leases, Recorder recorder, OutboxProvider provider) {
        Leasebox drain = LeaseboxToolBuilder.drain(outbox).decorateFencedStore(store -> ledger.recording(owner, store))
                .table(table).leases(leases).rowGrouping(LeaseGrouping.NONE).provider(provider)
                .options(DrainOptions.builder().owner(owner).batchSize(10).leaseDuration(LEASE)
                        .idlePolling(Duration.ofMillis(20), Duration.ofMillis(200))
                        .backoff(RETRY_AFTER, 1, RETRY_AFTER, 0).shutdownTimeout(Duration.ofSeconds(5)).build())
                .listener(recorder).build();
        drains.add(drain);
        return drain;
    }

    /** A row's claim columns as they stand. */
    private record Row(long id, String status, String claimOwner, Long claimToken, long fenceHighWater) {
        boolean delivered() {
            return status.equals("DELIVERED");
        }
    }

    private Map<Long, Row> rows() throws SQLException {
        return query("SELECT id, status, claim_owner, claim_token, fence_high_water FROM " + table.qualified());
    }

    /** The pending row with the highest mark that a claim may take now (due, no live claim). */
    private Row highestMarkedEligibleRow() throws SQLException {
        Map<Long, Row> found = query("SELECT id, status, claim_owner, claim_token, fence_high_water FROM " + table.qualified()
                + " WHERE status <> 'DELIVERED' AND fence_high_water > 0 AND (next_attempt_at IS NULL OR next_attempt_at <= now())"
                + " AND (claim_expires_at IS NULL OR claim_expires_at <= now()) ORDER BY fence_high_water DESC LIMIT 1");
        assertThat(found).as("a pending row carrying a mark of worker A, claimable now").hasSize(1);
        return found.values().iterator().next();
    }

    private Map<Long, Row> query(String sql) throws SQLException {
        Map<Long, Row> rows = new LinkedHashMap<>();
        try (Connection c = outbox.getConnection(); PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long token = rs.getLong(4);
                rows.put(rs.getLong(1), new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.wasNull() ? null : token, rs.getLong(5)));
            }
        }
        return rows;
    }

    /** A worker's claims (the latest per row), and the rows it heard lost and abandoned. */
    private static final class Recorder implements DrainListener {
        final Map<Long, OutboxClaim> claims = new ConcurrentHashMap<>();
        final Set<Long> lost = ConcurrentHashMap.newKeySet();
        final Set<Long> abandoned = ConcurrentHashMap.newKeySet();

        @Override
        public void claimed(List<OutboxClaim> batch) {
            batch.forEach(claim -> claims.put(claim.entryId(), claim));
        }

        @Override
        public void claimsLost(Set<Long> entryIds, String cause) {
            lost.addAll(entryIds);
        }

        @Override
        public void claimsAbandoned(Set<Long> entryIds, String reason) {
            abandoned.addAll(entryIds);
        }
    }
}
