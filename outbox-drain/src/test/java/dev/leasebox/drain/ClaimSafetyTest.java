package dev.leasebox.drain;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.leasebox.drain.DrainFixture.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Claim before emit, reclaim after expiry, no stale finalization, lost leases abandon their results. */
class ClaimSafetyTest {

    private final DrainFixture f = new DrainFixture();
    private final ExecutorService background = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() {
        background.shutdownNow();
        f.close();
    }

    @Test
    void aWorkerThatCannotClaimNeverEmits() {
        f.enqueue(5);
        RecordingProvider secondProvider = RecordingProvider.delivering(f.clock);
        OutboxDrain second = f.drain("worker-b", secondProvider);
        AtomicReference<CycleResult> seenBySecond = new AtomicReference<>();
        RecordingProvider firstProvider = new RecordingProvider(f.clock, e -> {
            seenBySecond.compareAndSet(null, second.runOnce()); // while the first holds all five claims
            return ProviderOutcome.delivered();
        });
        OutboxDrain first = f.drain("worker-a", firstProvider);

        CycleResult firstResult = first.runOnce();

        assertThat(seenBySecond.get()).isEqualTo(CycleResult.EMPTY);
        assertThat(secondProvider.emissions).isEmpty();
        assertThat(firstResult.delivered()).isEqualTo(5);
        assertThat(f.outbox.all()).allMatch(e -> e.status() == EmissionStatus.DELIVERED);
        assertThat(firstProvider.emissions).extracting(RecordingProvider.Emission::entryId).doesNotHaveDuplicates();
    }

    @Test
    void aCrashedWorkersClaimIsReclaimedAfterExpiryWithAHigherTokenAndItsLateCompletionChangesNothing() {
        OutboxEntry entry = f.enqueue(1).get(0);
        LeasedOutboxClaimStore crashedStore = f.newClaimStore();
        OutboxClaim crashed = crashedStore.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("crashed-worker", 10, LEASE)).get(0);
        RecordingProvider provider = RecordingProvider.delivering(f.clock);
        OutboxDrain survivor = f.drain("worker-b", provider);

        assertThat(survivor.runOnce().isIdle()).as("claimed and unexpired: not claimable").isTrue();
        f.clock.advance(LEASE);
        CycleResult result = survivor.runOnce();

        assertThat(result.delivered()).isEqualTo(1);
        long reclaimToken = provider.emissions.get(0).fence().orElseThrow();
        assertThat(reclaimToken).isGreaterThan(crashed.token());
        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.claimAttemptCount()).isEqualTo(crashed.claimAttemptCount() + 1).isEqualTo(2);
        assertThat(row.fenceHighWater()).isEqualTo(reclaimToken);

        CompletionOutcome late = crashedStore.markClaimFailed(crashed,
                EmissionError.retryable("timeout", "woke up late"), f.clock.instant().plusSeconds(60));

        assertThat(late).isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(f.row(entry.id())).isEqualTo(row);
    }

    @Test
    void aStaleCompletionWhileTheReclaimerStillHoldsTheRowIsRefusedAndChangesNothing() {
        OutboxEntry entry = f.enqueue(1).get(0);
        LeasedOutboxClaimStore crashedStore = f.newClaimStore();
        OutboxClaim crashed = crashedStore.claim(ClaimSelection.ELIGIBLE, new ClaimRequest("crashed-worker", 10, LEASE)).get(0);
        f.clock.advance(LEASE);
        AtomicReference<CompletionOutcome> late = new AtomicReference<>();
        AtomicReference<OutboxEntry> rowBefore = new AtomicReference<>();
        OutboxDrain survivor = f.drain("worker-b", new RecordingProvider(f.clock, e -> {
            rowBefore.set(f.row(entry.id()));
            late.set(crashedStore.markClaimDelivered(crashed, EmissionResult.at(f.clock.instant())));
            assertThat(f.row(entry.id())).isEqualTo(rowBefore.get());
            return ProviderOutcome.delivered();
        }));

        assertThat(survivor.runOnce().delivered()).isEqualTo(1);

        assertThat(late.get()).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(rowBefore.get().claimOwner()).contains("worker-b");
        assertThat(f.row(entry.id()).status()).isEqualTo(EmissionStatus.DELIVERED);
    }

    @Test
    void aDrainWhoseClaimWasReclaimedHasItsCompletionRefusedCountedAndReportedNotThrown() {
        OutboxEntry entry = f.enqueue(1).get(0);
        // The stalled worker's clock lags the coordinator's by more than the safety margin: only the
        // store's token check stands between its late result and the row.
        MutableClock laggingClock = new MutableClock(f.clock.instant());
        OutboxDrain reclaimer = f.drain("worker-b", RecordingProvider.delivering(f.clock));
        AtomicReference<OutboxEntry> afterReclaim = new AtomicReference<>();
        RecordingListener listener = new RecordingListener();
        OutboxDrain stalled = f.register(OutboxDrain.builder().store(f.newClaimStore())
                .provider(e -> {
                    f.clock.advance(LEASE.plusSeconds(1));
                    assertThat(reclaimer.runOnce().delivered()).isEqualTo(1);
                    afterReclaim.set(f.row(entry.id()));
                    return ProviderOutcome.retryable("timed out after a long GC pause");
                })
                .options(DrainFixture.options("worker-a").build()).clock(laggingClock).listener(listener).build());

        CycleResult result = stalled.runOnce();

        assertThat(result).isEqualTo(new CycleResult(1, 0, 0, 0, 0, 0, 1, 0));
        assertThat(listener.refused).hasSize(1);
        assertThat(listener.refused.get(0).refusal()).isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(f.row(entry.id())).isEqualTo(afterReclaim.get());
        assertThat(f.row(entry.id()).status()).isEqualTo(EmissionStatus.DELIVERED);
    }

    @Test
    void aLeaseThatExpiresDuringEmissionIsAbandonedAndNothingIsWritten() {
        List<OutboxEntry> entries = f.enqueue(2);
        RecordingListener listener = new RecordingListener();
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            f.clock.advance(LEASE.plusSeconds(1)); // the emission stalls past the lease
            return ProviderOutcome.delivered();
        });
        OutboxDrain stalled = f.register(f.drainOn(f.newClaimStore(), provider, DrainFixture.options("worker-a").build())
                .listener(listener).build());

        CycleResult result = stalled.runOnce();

        assertThat(result).isEqualTo(new CycleResult(2, 0, 0, 0, 0, 2, 0, 0));
        assertThat(provider.emissions).as("the second claim lapsed before its emission").hasSize(1);
        for (OutboxEntry entry : entries) {
            OutboxEntry row = f.row(entry.id());
            assertThat(row.status()).isEqualTo(EmissionStatus.PENDING);
            assertThat(row.attemptCount()).isZero();
            assertThat(row.deliveredAt()).isEmpty();
            assertThat(row.isClaimedAt(f.clock.instant())).isFalse();
        }
        assertThat(listener.abandoned).containsExactlyInAnyOrder(entries.get(0).id(), entries.get(1).id());
        assertThat(listener.lost).containsExactlyInAnyOrder(entries.get(0).id(), entries.get(1).id());

        RecordingProvider afterwards = RecordingProvider.delivering(f.clock);
        assertThat(f.drain("worker-b", afterwards).runOnce().delivered()).isEqualTo(2);
        assertThat(afterwards.emissions.get(0).fence().orElseThrow())
                .isGreaterThan(provider.emissions.get(0).fence().orElseThrow());
    }

    @Test
    void aRenewalRefusedDuringEmissionLosesTheClaimAndItsResultIsNotWritten() throws Exception {
        OutboxEntry entry = f.enqueue(1).get(0);
        CountDownLatch inEmission = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        RecordingListener listener = new RecordingListener();
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            inEmission.countDown();
            assertThat(proceed.await(10, TimeUnit.SECONDS)).isTrue();
            return ProviderOutcome.delivered();
        });
        DrainOptions options = DrainFixture.options("worker-a").renewalInterval(Duration.ofMillis(20)).build();
        OutboxDrain drain = f.register(f.drainOn(f.newClaimStore(), provider, options).listener(listener).build());

        Future<CycleResult> cycle = background.submit(drain::runOnce);
        assertThat(inEmission.await(10, TimeUnit.SECONDS)).isTrue();
        f.leases.loseFenceCounter(1_000); // the coordinator forgets every lease: the next renewal is refused
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(listener.lost).contains(entry.id()));
        proceed.countDown();
        CycleResult result = cycle.get(10, TimeUnit.SECONDS);

        assertThat(result).isEqualTo(new CycleResult(1, 0, 0, 0, 0, 1, 0, 0));
        assertThat(listener.lossCauses).anySatisfy(cause -> assertThat(cause).contains("RENEWAL_REFUSED"));
        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row.attemptCount()).isZero();
    }

    @Test
    void renewalsKeepTheClaimsOfALongEmissionAliveBeyondTheLeaseDuration() throws Exception {
        OutboxEntry entry = f.enqueue(1).get(0);
        CountDownLatch inEmission = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            inEmission.countDown();
            assertThat(proceed.await(10, TimeUnit.SECONDS)).isTrue();
            return ProviderOutcome.delivered();
        });
        ObservedClaimStore store = new ObservedClaimStore(f.newClaimStore());
        DrainOptions options = DrainFixture.options("worker-a").renewalInterval(Duration.ofMillis(20)).build();
        OutboxDrain drain = f.register(f.drainOn(store, provider, options).build());

        Future<CycleResult> cycle = background.submit(drain::runOnce);
        assertThat(inEmission.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 3; i++) { // 60 s in all: twice the lease
            f.clock.advance(Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> f.row(entry.id()).claimExpiresAt().orElseThrow().equals(f.clock.instant().plus(LEASE)));
        }
        proceed.countDown();
        CycleResult result = cycle.get(10, TimeUnit.SECONDS);

        assertThat(result).isEqualTo(new CycleResult(1, 1, 0, 0, 0, 0, 0, 0));
        assertThat(store.renewCalls.get()).isGreaterThanOrEqualTo(3);
        assertThat(f.row(entry.id()).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(f.leases.heldCount()).isZero();
    }

    @Test
    void whileClaimsAreAtRiskNoEmissionStartsAndUnemittedClaimsAreHandedBack() {
        List<OutboxEntry> entries = f.enqueue(3);
        ObservedClaimStore store = new ObservedClaimStore(f.newClaimStore());
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            if (e.entryId() == entries.get(0).id()) {
                store.lossListeners.forEach(l -> l.claimsAtRisk("coordinator connection suspended"));
            }
            return ProviderOutcome.delivered();
        });
        RecordingListener listener = new RecordingListener();
        OutboxDrain drain = f.register(f.drainOn(store, provider, DrainFixture.options("worker-a").build())
                .listener(listener).build());

        assertThat(drain.runOnce()).isEqualTo(new CycleResult(3, 1, 0, 0, 0, 0, 0, 2));
        assertThat(provider.emissions).hasSize(1);
        assertThat(listener.released).containsExactlyInAnyOrder(entries.get(1).id(), entries.get(2).id());
        for (OutboxEntry entry : entries.subList(1, 3)) {
            assertThat(f.row(entry.id()).status()).isEqualTo(EmissionStatus.PENDING);
            assertThat(f.row(entry.id()).claimToken()).as("handed back, claimable at once").isEmpty();
        }
        assertThat(drain.runOnce().isIdle()).as("no claims while at risk").isTrue();
        assertThat(store.claimCalls).hasValue(1);

        store.lossListeners.forEach(ClaimLossListener::claimsSafeAgain);
        assertThat(drain.runOnce().delivered()).isEqualTo(2);
        assertThat(f.outbox.all()).allMatch(e -> e.status() == EmissionStatus.DELIVERED);
    }

    @Test
    void resultsTheStoreCannotBeToldAreAbandonedNotThrownAndTheEntriesAreReclaimedAfterExpiry() {
        OutboxEntry entry = f.enqueue(1).get(0);
        ObservedClaimStore store = new ObservedClaimStore(f.newClaimStore());
        RecordingListener listener = new RecordingListener();
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            store.unreachable.set(new IllegalStateException("database at 127.0.0.1:5432 unreachable"));
            return ProviderOutcome.delivered();
        });
        OutboxDrain drain = f.register(f.drainOn(store, provider, DrainFixture.options("worker-a").build())
                .listener(listener).build());

        assertThat(drain.runOnce()).isEqualTo(new CycleResult(1, 0, 0, 0, 0, 1, 0, 0));
        assertThat(listener.abandoned).containsExactly(entry.id());
        assertThat(f.row(entry.id()).status()).isEqualTo(EmissionStatus.PENDING);

        store.unreachable.set(null);
        f.clock.advance(LEASE);
        RecordingProvider reclaimer = RecordingProvider.delivering(f.clock);
        assertThat(f.drain("worker-b", reclaimer).runOnce().delivered()).isEqualTo(1);
        assertThat(reclaimer.emissions.get(0).idempotencyKey()).isEqualTo(provider.emissions.get(0).idempotencyKey());
    }

    @Test
    void aPollingLoopSurvivesAStoreThatCannotBeReachedAndDrainsOnceItIsBack() {
        f.enqueue(3);
        ObservedClaimStore store = new ObservedClaimStore(f.newClaimStore());
        store.unreachable.set(new IllegalStateException("database at 127.0.0.1:5432 unreachable"));
        List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        DrainListener listener = new DrainListener() {
            @Override
            public void cycleFailed(RuntimeException error) {
                failures.add(error);
            }
        };
        DrainOptions options = DrainFixture.options("worker-a").idlePolling(Duration.ofMillis(1), Duration.ofMillis(5)).build();
        OutboxDrain drain = f.register(f.drainOn(store, RecordingProvider.delivering(f.clock), options)
                .listener(listener).build());

        drain.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> failures.size() >= 2);
        assertThat(f.outbox.all()).allMatch(e -> e.status() == EmissionStatus.PENDING);
        store.unreachable.set(null);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> f.outbox.all().stream().allMatch(e -> e.status() == EmissionStatus.DELIVERED));
        assertThat(failures.get(0)).hasMessage("database at 127.0.0.1:5432 unreachable");
    }
}
