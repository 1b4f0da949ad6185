package dev.leasebox.claim.leased;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lean claim mode and the release-after-completion policy over the reference store and
 * coordinator: what lean writes (nothing until the completion), what it refuses before emitting, what
 * it accepts that the recorded mode would refuse, and which leases are left to lapse.
 */
class LeanLeasedOutboxClaimStoreTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryOutboxStore rows = new InMemoryOutboxStore(clock);
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);

    private LeasedOutboxClaimStore lean(FencedOutboxStore store, ReleaseAfterCompletion release) {
        return LeasedOutboxClaimStore.builder(store, coordinator, clock).claimMode(ClaimMode.LEAN)
                .releaseAfterCompletion(release).open();
    }

    private LeasedOutboxClaimStore lean() {
        return lean(rows, ReleaseAfterCompletion.ALWAYS);
    }

    private OutboxEntry enqueue(String name) {
        OutboxEntry entry = rows.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey(name));
        clock.advance(Duration.ofSeconds(1));
        return entry;
    }

    private static ClaimRequest request(String owner, int batch) {
        return new ClaimRequest(owner, batch, LEASE);
    }

    private boolean keyIsFree(long entryId) {
        List<Lease> probe = coordinator.acquire(new LeaseRequest(List.of(LeasedOutboxClaimStore.leaseKey(entryId)), "probe", LEASE));
        coordinator.release(probe);
        return !probe.isEmpty();
    }

    private Completion delivered() {
        return new Completion.Delivered(EmissionResult.at(clock.instant()));
    }

    @Test
    void aLeanClaimWritesNothingToTheRowAndItsCompletionWritesTheOutcomeUnderTheLeasesFence() {
        LeasedOutboxClaimStore store = lean();
        OutboxEntry entry = enqueue("a");
        OutboxEntry before = rows.find(entry.id()).orElseThrow();

        OutboxClaim claim = store.claimPending(request("w1", 10)).get(0);

        assertThat(rows.find(entry.id()).orElseThrow()).as("no claim record").isEqualTo(before);
        assertThat(claim.entry().claimToken()).hasValue(claim.token());
        assertThat(claim.claimAttemptCount()).isEqualTo(1);
        assertThat(keyIsFree(entry.id())).isFalse();

        assertThat(store.markClaimDelivered(claim, EmissionResult.at(clock.instant())).isCompleted()).isTrue();
        OutboxEntry row = rows.find(entry.id()).orElseThrow();
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.fenceHighWater()).isEqualTo(claim.token());
        assertThat(row.claimAttemptCount()).isEqualTo(1);
        assertThat(keyIsFree(entry.id())).as("released (always)").isTrue();
    }

    @Test
    void aRowCompletedByItsPreviousHolderBetweenTheCandidateReadAndTheGrantIsDroppedBeforeEmission() {
        InterferingFencedStore interfering = new InterferingFencedStore(rows);
        LeasedOutboxClaimStore store = lean(interfering, ReleaseAfterCompletion.ALWAYS);
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        // The previous holder of b completes and releases after this worker's candidate read and before
        // its grant: the grant succeeds, but the row is DELIVERED by the time it is read again.
        interfering.beforeNextEligibilityCheck(() -> rows.completeAllFenced(List.of(new ClaimCompletion(
                new OutboxClaim(rows.find(b.id()).orElseThrow().toBuilder().claim("w0", 1, clock.instant(),
                        clock.instant().plus(LEASE), 1).build(), "w0", 1, clock.instant(), clock.instant().plus(LEASE), 1),
                delivered()))));

        List<OutboxClaim> claims = store.claimPending(request("w1", 10));

        assertThat(claims).extracting(OutboxClaim::entryId).containsExactly(a.id());
        assertThat(keyIsFree(b.id())).as("the dropped row's lease is released").isTrue();
        assertThat(store.heldCount()).isEqualTo(1);
    }

    @Test
    void fencesThatWentBackAreRefusedBeforeEmissionThenTheFloorIsRaisedAndTheRetryClaims() {
        LeasedOutboxClaimStore store = lean();
        List<OutboxEntry> entries = List.of(enqueue("a"), enqueue("b"));
        coordinator.raiseFenceFloor(100);
        store.completeAll(store.claimPending(request("w0", 10)).stream()
                .map(c -> new ClaimCompletion(c, new Completion.Released("warm-up"))).toList());
        long highWater = rows.highestFenceHighWater();
        assertThat(highWater).isGreaterThan(100);

        coordinator.loseFenceCounter(0);
        List<OutboxClaim> claims = store.claimPending(request("w1", 10));

        assertThat(claims).extracting(OutboxClaim::entryId).containsExactlyElementsOf(entries.stream().map(OutboxEntry::id).toList());
        assertThat(claims).allSatisfy(c -> assertThat(c.token()).isGreaterThan(highWater));
        assertThat(coordinator.heldCount()).as("the low-fence leases were released").isEqualTo(2);
    }

    @Test
    void aManagerThatCannotRaiseItsFloorGetsNothingClaimedAndNothingWritten() {
        FixedCounterLeaseManager fixed = new FixedCounterLeaseManager(coordinator);
        LeasedOutboxClaimStore store = LeasedOutboxClaimStore.builder(rows, fixed, clock).claimMode(ClaimMode.LEAN).open();
        OutboxEntry entry = enqueue("a");
        coordinator.raiseFenceFloor(100);
        store.releaseClaim(store.claimPending(request("w0", 1)).get(0), "warm-up");
        List<OutboxEntry> before = rows.all();

        coordinator.loseFenceCounter(0);

        assertThat(store.claimPending(request("w1", 10))).isEmpty();
        assertThat(rows.all()).isEqualTo(before);
        assertThat(keyIsFree(entry.id())).isTrue();
    }

    @Test
    void aStaleLeanHoldersCompletionIsAcceptedUntilTheNewerHolderCompletesAndRefusedAfter() {
        // two workers, each its own store, one coordinator: w1 has not noticed that its leases lapsed
        LeasedOutboxClaimStore w1 = lean();
        LeasedOutboxClaimStore w2 = lean();
        OutboxEntry first = enqueue("first");
        OutboxEntry second = enqueue("second");
        List<OutboxClaim> stale = w1.claimPending(request("w1", 10));
        clock.advance(LEASE.plusSeconds(1)); // w1 stalls past its lease; w2 is granted both keys
        List<OutboxClaim> newer = w2.claimPending(request("w2", 10));
        assertThat(newer).hasSize(2);

        // second: the newer holder completes first, so the stale holder is refused
        OutboxClaim newerOnSecond = newer.get(1);
        assertThat(w2.complete(newerOnSecond, new Completion.Failed(EmissionError.retryable("x", "down"),
                Optional.of(clock.instant().plusSeconds(60)))).isCompleted()).isTrue();
        assertThat(w1.complete(stale.get(1), delivered())).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(rows.find(second.id()).orElseThrow().status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);

        // first: the stale holder completes first; lean accepts it (recorded would not), then refuses the newer one
        assertThat(w1.complete(stale.get(0), delivered()).isCompleted()).isTrue();
        assertThat(w2.complete(newer.get(0), delivered())).isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        OutboxEntry row = rows.find(first.id()).orElseThrow();
        assertThat(row.attemptCount()).as("finalized once").isEqualTo(1);
        assertThat(row.fenceHighWater()).isEqualTo(stale.get(0).token());
    }

    @Test
    void aLeanWorkerThatKnowsItsLeaseIsGoneWritesNothing() {
        // one worker: the key was granted again to another of its claim loops after its lease lapsed
        LeasedOutboxClaimStore store = lean();
        OutboxEntry entry = enqueue("known-lost");
        OutboxClaim stale = store.claimPending(request("w1", 1)).get(0);
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim newer = store.claimPending(request("w1", 1)).get(0);

        assertThat(store.complete(stale, delivered())).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(rows.find(entry.id()).orElseThrow().fenceHighWater()).as("nothing written").isZero();
        OutboxClaim forged = new OutboxClaim(newer.entry(), "w1", newer.token() + 1_000, newer.claimedAt(),
                newer.expiresAt(), newer.claimAttemptCount());
        assertThat(store.complete(forged, delivered())).as("a fence this worker was never granted")
                .isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(store.complete(newer, delivered()).isCompleted()).isTrue();
    }

    @Test
    void leanRenewalRenewsTheLeasesAndLeavesTheRowsAlone() {
        LeasedOutboxClaimStore store = lean();
        OutboxEntry entry = enqueue("a");
        OutboxClaim claim = store.claimPending(request("w1", 1)).get(0);
        OutboxEntry before = rows.find(entry.id()).orElseThrow();
        clock.advance(Duration.ofSeconds(20));

        List<OutboxClaim> renewed = store.renewClaims(List.of(claim), LEASE);

        assertThat(renewed).singleElement().satisfies(c -> assertThat(c.expiresAt()).isEqualTo(clock.instant().plus(LEASE)));
        assertThat(rows.find(entry.id()).orElseThrow()).isEqualTo(before);
        clock.advance(Duration.ofSeconds(20));
        assertThat(keyIsFree(entry.id())).as("lease renewed past its first ttl").isFalse();
    }

    @Test
    void nonTerminalReleaseLeavesTheLeasesOfTerminalRowsToLapseAndReleasesTheRest() {
        LeasedOutboxClaimStore store = lean(rows, ReleaseAfterCompletion.NON_TERMINAL);
        OutboxEntry delivered = enqueue("delivered");
        OutboxEntry dead = enqueue("dead");
        OutboxEntry retry = enqueue("retry");
        OutboxEntry handedBack = enqueue("handed back");
        List<OutboxClaim> claims = store.claimPending(request("w1", 10));

        List<CompletionOutcome> outcomes = store.completeAll(List.of(
                new ClaimCompletion(claims.get(0), delivered()),
                new ClaimCompletion(claims.get(1), new Completion.DeadLettered(EmissionError.permanent("x", "bad"), "bad")),
                new ClaimCompletion(claims.get(2), new Completion.Failed(EmissionError.retryable("x", "down"),
                        Optional.of(clock.instant().plusSeconds(1)))),
                new ClaimCompletion(claims.get(3), new Completion.Released("shutting down"))));

        assertThat(outcomes).allMatch(CompletionOutcome::isCompleted);
        assertThat(keyIsFree(delivered.id())).as("DELIVERED: left to lapse").isFalse();
        assertThat(keyIsFree(dead.id())).as("DEAD_LETTERED: left to lapse").isFalse();
        assertThat(keyIsFree(retry.id())).as("a retry is due soon: released").isTrue();
        assertThat(keyIsFree(handedBack.id())).as("handed back: released").isTrue();
        assertThat(store.heldCount()).as("nothing is remembered for the lapsing leases").isZero();
        clock.advance(LEASE);
        assertThat(keyIsFree(delivered.id())).as("lapsed at the ttl").isTrue();
    }

    @Test
    void nonTerminalReleaseIsRefusedForAManagerWhoseUnreleasedLeasesDoNotLapse() {
        FixedCounterLeaseManager keepsLeases = new FixedCounterLeaseManager(coordinator);

        assertThatThrownBy(() -> LeasedOutboxClaimStore.builder(rows, keepsLeases, clock)
                .releaseAfterCompletion(ReleaseAfterCompletion.NON_TERMINAL).open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-terminal").hasMessageContaining("Use 'always'");
    }

    @Test
    void theModesAndPoliciesParseFromTheirCommandLineSpellings() {
        assertThat(ClaimMode.parse("lean")).isEqualTo(ClaimMode.LEAN);
        assertThat(ClaimMode.parse("RECORDED")).isEqualTo(ClaimMode.RECORDED);
        assertThat(ReleaseAfterCompletion.parse("non-terminal")).isEqualTo(ReleaseAfterCompletion.NON_TERMINAL);
        assertThat(ReleaseAfterCompletion.parse("always")).isEqualTo(ReleaseAfterCompletion.ALWAYS);
        assertThatThrownBy(() -> ClaimMode.parse("fast")).hasMessageContaining("recorded or lean");
        assertThatThrownBy(() -> ReleaseAfterCompletion.parse("never")).hasMessageContaining("always or non-terminal");
    }
}
