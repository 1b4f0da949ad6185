package dev.leasebox.claim.leased;

import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** What the leased claim path adds over the fenced store: the fence floor, lease hygiene, loss forwarding. */
class LeasedOutboxClaimStoreTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryOutboxStore rows = new InMemoryOutboxStore(clock);
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);

    private OutboxEntry enqueue(String name) {
        OutboxEntry entry = rows.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey(name));
        clock.advance(Duration.ofSeconds(1));
        return entry;
    }

    private static ClaimRequest request(String owner, int batch) {
        return new ClaimRequest(owner, batch, LEASE);
    }

    /** Claims every row once with fences above {@code floor} and gives them back: rows keep high marks. */
    private long giveRowsHighFences(LeasedOutboxClaimStore leased, long floor) {
        coordinator.raiseFenceFloor(floor);
        List<OutboxClaim> claims = leased.claimPending(request("w0", 100));
        claims.forEach(c -> assertThat(leased.releaseClaim(c, "warm-up").isCompleted()).isTrue());
        return rows.highestFenceHighWater();
    }

    private boolean keyIsFree(long entryId) {
        List<Lease> probe = coordinator.acquire(new LeaseRequest(List.of(LeasedOutboxClaimStore.leaseKey(entryId)), "probe", LEASE));
        coordinator.release(probe);
        return !probe.isEmpty();
    }

    @Test
    void fencesThatWentBackAreRefusedThenTheFloorIsRaisedAndTheRetryClaimsInTheSameCall() {
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, coordinator, clock);
        List<OutboxEntry> entries = List.of(enqueue("a"), enqueue("b"), enqueue("c"));
        long highWater = giveRowsHighFences(leased, 100);
        assertThat(highWater).isGreaterThan(100);

        coordinator.loseFenceCounter(0);
        List<OutboxClaim> claims = leased.claimPending(request("w1", 10));

        assertThat(claims).extracting(OutboxClaim::entryId)
                .containsExactlyInAnyOrderElementsOf(entries.stream().map(OutboxEntry::id).toList());
        assertThat(claims).allSatisfy(c -> {
            assertThat(c.token()).isGreaterThan(highWater);
            assertThat(rows.find(c.entryId()).orElseThrow().claimToken()).hasValue(c.token());
        });
        assertThat(coordinator.heldCount()).as("the refused low-fence leases were released").isEqualTo(3);
        assertThat(leased.heldCount()).isEqualTo(3);
    }

    @Test
    void aManagerThatCannotRaiseItsFloorGetsRowsRefusedWithNothingWrittenAndItsLeasesReleased() {
        FixedCounterLeaseManager fixed = new FixedCounterLeaseManager(coordinator);
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, fixed, clock);
        List<OutboxEntry> entries = List.of(enqueue("a"), enqueue("b"));
        giveRowsHighFences(leased, 100);
        List<OutboxEntry> before = rows.all();

        coordinator.loseFenceCounter(0);
        List<OutboxClaim> claims = leased.claimPending(request("w1", 10));

        assertThat(claims).isEmpty();
        assertThat(rows.all()).as("no row written").isEqualTo(before);
        assertThat(coordinator.heldCount()).isZero();
        assertThat(leased.heldCount()).isZero();
        entries.forEach(e -> assertThat(keyIsFree(e.id())).isTrue());
    }

    @Test
    void openRaisesTheFloorToTheOutboxsHighestFence() {
        OutboxEntry entry = enqueue("a");
        OutboxClaim old = rows.recordClaims(ClaimSelection.ELIGIBLE,
                List.of(new ClaimGrant(entry.id(), "w0", 50, clock.instant(), clock.instant().plus(LEASE)))).recorded().get(0);
        rows.complete(old, new Completion.Released("back"));

        LeasedOutboxClaimStore.open(rows, coordinator, clock);

        List<Lease> next = coordinator.acquire(new LeaseRequest(List.of("unrelated"), "probe", LEASE));
        assertThat(next).singleElement().satisfies(l -> assertThat(l.fence()).isGreaterThan(50));
    }

    @Test
    void leasesGrantedForRowsThatCouldNotBeClaimedAreReleased() {
        InterferingFencedStore interfering = new InterferingFencedStore(rows);
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(interfering, coordinator, clock);
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        interfering.beforeNextRecording(() ->
                rows.save(rows.find(b.id()).orElseThrow().toBuilder().status(EmissionStatus.DELIVERED).build()));

        List<OutboxClaim> claims = leased.claimPending(request("w1", 10));

        assertThat(claims).extracting(OutboxClaim::entryId).containsExactly(a.id());
        assertThat(coordinator.heldCount()).isEqualTo(1);
        assertThat(keyIsFree(b.id())).isTrue();
        assertThat(keyIsFree(a.id())).isFalse();
    }

    @Test
    void completionReleasesTheLeaseSoTheKeyIsFreeAtOnce() {
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, coordinator, clock);
        enqueue("a");
        enqueue("b");
        List<OutboxClaim> claims = leased.claimPending(request("w1", 10));
        assertThat(claims).hasSize(2);

        assertThat(leased.markClaimDelivered(claims.get(0), EmissionResult.at(clock.instant())).isCompleted()).isTrue();
        assertThat(keyIsFree(claims.get(0).entryId())).isTrue();
        assertThat(keyIsFree(claims.get(1).entryId())).isFalse();

        leased.completeAll(List.of(new ClaimCompletion(claims.get(1), new Completion.Released("back"))));
        assertThat(coordinator.heldCount()).isZero();
        assertThat(leased.heldCount()).isZero();
    }

    @Test
    void aStaleCompletionLeavesTheNewHoldersLeaseInPlace() {
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, coordinator, clock);
        enqueue("a");
        OutboxClaim old = leased.claimPending(request("w1", 1)).get(0);
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim current = leased.claimPending(request("w2", 1)).get(0);

        CompletionOutcome outcome = leased.markClaimDelivered(old, EmissionResult.at(clock.instant()));

        assertThat(outcome).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(keyIsFree(current.entryId())).isFalse();
        assertThat(leased.renewClaims(List.of(current), LEASE)).hasSize(1);
    }

    @Test
    void renewalExtendsTheLeaseOnTheCoordinatorAndTheClaimOnTheRow() {
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, coordinator, clock);
        enqueue("a");
        OutboxClaim claim = leased.claimPending(request("w1", 1)).get(0);
        clock.advance(Duration.ofSeconds(20));

        List<OutboxClaim> renewed = leased.renewClaims(List.of(claim), LEASE);

        assertThat(renewed).singleElement().satisfies(c -> assertThat(c.expiresAt()).isEqualTo(clock.instant().plus(LEASE)));
        clock.advance(Duration.ofSeconds(20));
        assertThat(keyIsFree(claim.entryId())).as("lease renewed past its first ttl").isFalse();
        assertThat(rows.find(claim.entryId()).orElseThrow().isClaimedAt(clock.instant())).isTrue();
    }

    @Test
    void aLostLeaseIsForwardedToClaimLossListenersAsItsEntryId() {
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, coordinator, clock);
        List<Map.Entry<Set<Long>, String>> lost = new CopyOnWriteArrayList<>();
        leased.addClaimLossListener((ids, cause) -> lost.add(Map.entry(ids, cause)));
        enqueue("a");
        enqueue("b");
        List<OutboxClaim> claims = leased.claimPending(request("w1", 2));
        OutboxClaim victim = claims.get(0);
        clock.advance(Duration.ofSeconds(20));
        OutboxClaim kept = leased.renewClaims(List.of(claims.get(1)), LEASE).get(0);
        clock.advance(Duration.ofSeconds(11));
        coordinator.acquire(new LeaseRequest(List.of(LeasedOutboxClaimStore.leaseKey(victim.entryId())), "other-node", LEASE));

        List<OutboxClaim> renewed = leased.renewClaims(List.of(victim, kept), LEASE);

        assertThat(renewed).extracting(OutboxClaim::entryId).containsExactly(kept.entryId());
        assertThat(lost).hasSize(1);
        assertThat(lost.get(0).getKey()).containsExactly(victim.entryId());
        assertThat(lost.get(0).getValue()).contains("RENEWAL_REFUSED");
        assertThat(leased.heldCount()).as("the lost claim is forgotten, the kept one is not").isEqualTo(1);
    }

    @Test
    void connectionEventsOfTheManagerReachClaimLossListeners() {
        FixedCounterLeaseManager manager = new FixedCounterLeaseManager(coordinator);
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, manager, clock);
        List<String> events = new CopyOnWriteArrayList<>();
        leased.addClaimLossListener(new ClaimLossListener() {
            @Override
            public void claimsLost(Set<Long> entryIds, String cause) {
                events.add("lost " + entryIds);
            }

            @Override
            public void claimsAtRisk(String cause) {
                events.add("at risk: " + cause);
            }

            @Override
            public void claimsSafeAgain() {
                events.add("safe again");
            }
        });

        manager.listeners.forEach(l -> l.connectionSuspended("zk suspended"));
        manager.listeners.forEach(l -> l.connectionRestored("zk reconnected"));

        assertThat(events).containsExactly("at risk: zk suspended", "safe again");
    }

    @Test
    void leaseKeysRoundTripToEntryIdsAndForeignKeysAreIgnored() {
        assertThat(LeasedOutboxClaimStore.leaseKey(42)).isEqualTo("row-42");
        assertThat(LeasedOutboxClaimStore.entryIdOf("row-42")).contains(42L);
        assertThat(LeasedOutboxClaimStore.entryIdOf("partition-3")).isEqualTo(Optional.empty());
        assertThat(LeasedOutboxClaimStore.entryIdOf("row-x")).isEmpty();
    }
}
