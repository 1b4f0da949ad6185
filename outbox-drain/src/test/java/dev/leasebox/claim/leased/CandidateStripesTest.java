package dev.leasebox.claim.leased;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Candidate stripes on the leased claim path: a worker whose manager knows its rank asks first for
 * the rows of its own stripe, takes other rows only when its stripe runs short, and never asks again
 * for rows its other loops are holding.
 */
class CandidateStripesTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryOutboxStore rows = new InMemoryOutboxStore(clock);
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);

    /** One worker's view of the shared coordinator: a fixed rank, and every lease request it sends. */
    private final class Worker extends ForwardingLeaseManager implements RowBlockLeases, PeerRanking {
        private final Optional<PeerRank> rank;
        private final int block;
        private final List<LeaseRequest> requests = new CopyOnWriteArrayList<>();

        Worker(Optional<PeerRank> rank) {
            this(rank, 1);
        }

        Worker(Optional<PeerRank> rank, int block) {
            super(coordinator);
            this.rank = rank;
            this.block = block;
        }

        @Override
        public int rowBlock() {
            return block;
        }

        @Override
        public List<Lease> acquire(LeaseRequest request) {
            requests.add(request);
            return super.acquire(request);
        }

        @Override
        public Optional<PeerRank> peerRank() {
            return rank;
        }

        @Override
        public void close() {
        }

        /** The entry ids of the last request, in the order asked. */
        List<Long> lastAsked() {
            return requests.get(requests.size() - 1).keys().stream()
                    .map(key -> LeasedOutboxClaimStore.entryIdOf(key).orElseThrow()).toList();
        }
    }

    private List<Long> enqueue(int count) {
        return java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> rows.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("e" + i)).id())
                .toList();
    }

    private static ClaimRequest request(String owner, int batch) {
        return new ClaimRequest(owner, batch, LEASE);
    }

    private static List<Long> idsOf(List<OutboxClaim> claims) {
        return claims.stream().map(OutboxClaim::entryId).toList();
    }

    @Test
    void aRankedWorkerAsksForItsOwnStripeOldestFirstAndIsGrantedOnlyThoseWhileItHasEnough() {
        List<Long> ids = enqueue(30);
        Worker worker = new Worker(Optional.of(new PeerRank(1, 3)));
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, worker, clock);
        CandidateStripe stripe = new CandidateStripe(1, 3);
        List<Long> own = ids.stream().filter(stripe::contains).toList();

        List<OutboxClaim> claims = leased.claimPending(request("w1", 4));

        assertThat(worker.lastAsked()).hasSize(8);
        assertThat(worker.lastAsked().subList(0, 8)).containsExactlyElementsOf(own.subList(0, 8));
        assertThat(idsOf(claims)).containsExactlyElementsOf(own.subList(0, 4));
    }

    @Test
    void workersOfDifferentRanksClaimDisjointStripesThenHelpWithTheOthersWhenTheirOwnRunsShort() {
        List<Long> ids = enqueue(20);
        LeasedOutboxClaimStore first = LeasedOutboxClaimStore.open(rows, new Worker(Optional.of(new PeerRank(0, 2))), clock);
        LeasedOutboxClaimStore second = LeasedOutboxClaimStore.open(rows, new Worker(Optional.of(new PeerRank(1, 2))), clock);

        List<Long> a = idsOf(first.claimPending(request("w0", 5)));
        List<Long> b = idsOf(second.claimPending(request("w1", 5)));

        assertThat(a).allMatch(id -> id % 2 == 0).doesNotContainAnyElementsOf(b);
        assertThat(b).allMatch(id -> id % 2 == 1);
        List<Long> rest = idsOf(first.claimPending(request("w0", 10)));
        assertThat(rest).as("5 of its own stripe were left, and 5 of the other's").hasSize(10)
                .doesNotContainAnyElementsOf(a).doesNotContainAnyElementsOf(b);
        assertThat(rest.stream().filter(id -> id % 2 == 0)).hasSize(5);
        assertThat(ids).containsAll(rest);
    }

    @Test
    void aWorkerWithoutARankAsksForTheOldestRowsAsBefore() {
        List<Long> ids = enqueue(10);
        Worker worker = new Worker(Optional.empty());
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, worker, clock);

        leased.claimPending(request("w1", 3));

        assertThat(worker.lastAsked()).containsExactlyElementsOf(ids.subList(0, 6));
    }

    @Test
    void rowsThisStoreHoldsAreNotAskedForAgainUntilTheirLeasesLapse() {
        List<Long> ids = enqueue(12);
        Worker worker = new Worker(Optional.empty());
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.builder(rows, worker, clock).claimMode(ClaimMode.LEAN).open();

        List<Long> first = idsOf(leased.claimPending(request("w1", 3)));
        assertThat(first).containsExactlyElementsOf(ids.subList(0, 3));
        leased.claimPending(request("w1", 3));

        assertThat(worker.lastAsked()).as("lean claims leave the rows eligible; the store itself knows they are taken")
                .containsExactlyElementsOf(ids.subList(3, 9));
        clock.advance(LEASE.plusSeconds(1));
        leased.claimPending(request("w1", 3));
        assertThat(worker.lastAsked()).as("lapsed leases make their rows candidates again").containsAll(first);
    }

    @Test
    void theReferenceOrderDropsExcludedIdsPutsTheStripeFirstAndStopsAtTheSample() {
        CandidateQuery query = new CandidateQuery(ClaimSelection.ELIGIBLE, 2, 2, new CandidateStripe(0, 3), Set.of(3L));

        assertThat(query.preferenceOrder(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 9L))).containsExactly(6L, 9L, 1L, 2L);
        assertThat(CandidateQuery.of(ClaimSelection.ELIGIBLE, 1, 3).preferenceOrder(List.of(5L, 6L))).containsExactly(5L, 6L);
    }

    @Test
    void stripesAndQueriesRefuseImpossibleValues() {
        assertThatThrownBy(() -> new CandidateStripe(3, 3)).hasMessage("stripe index must be in 0..2, was 3");
        assertThatThrownBy(() -> new CandidateStripe(0, 0)).hasMessage("stripe count must be at least 1, was 0");
        assertThatThrownBy(() -> new PeerRank(-1, 2)).hasMessage("rank must be in 0..1, was -1");
        assertThatThrownBy(() -> CandidateQuery.of(ClaimSelection.ELIGIBLE, 0, 2)).hasMessage("batch must be at least 1, was 0");
        assertThat(CandidateStripe.of(new PeerRank(2, 5))).isEqualTo(new CandidateStripe(2, 5));
        assertThat(CandidateStripe.ALL.isStriped()).isFalse();
        assertThat(new CandidateStripe(1, 4).contains(9)).isTrue();
        assertThat(new CandidateStripe(1, 4).contains(10)).isFalse();
        assertThatThrownBy(() -> new CandidateStripe(0, 2, 0)).hasMessage("stripe block must be at least 1 row, was 0");
    }

    @Test
    void aStripeOfBlocksTakesWholeBlocksOfConsecutiveRows() {
        CandidateStripe stripe = new CandidateStripe(1, 3, 4);
        assertThat(java.util.stream.LongStream.range(0, 28).filter(stripe::contains).boxed().toList())
                .as("blocks 1 and 4 of 3 stripes").containsExactly(4L, 5L, 6L, 7L, 16L, 17L, 18L, 19L);
        assertThat(stripe.contains(-8)).as("block -2 is stripe 1 of 3").isTrue();
        assertThat(CandidateStripe.of(new PeerRank(1, 3), 4)).isEqualTo(stripe);
        assertThat(new CandidateStripe(1, 3)).isEqualTo(new CandidateStripe(1, 3, 1));
    }

    @Test
    void withBlocksTheSampleHoldsABatchBeyondAnyOneBlock() {
        CandidateStripe blocks = new CandidateStripe(1, 2, 128);

        assertThat(new CandidateQuery(ClaimSelection.ELIGIBLE, 50, 2, blocks, Set.of()).sample())
                .as("a batch of 50 against blocks of 128: a held block of the stripe may fill 2 × 50").isEqualTo(178);
        assertThat(new CandidateQuery(ClaimSelection.ELIGIBLE, 1, 2, blocks, Set.of()).sample()).isEqualTo(129);
        assertThat(new CandidateQuery(ClaimSelection.ELIGIBLE, 100, 3, new CandidateStripe(1, 2, 64), Set.of()).sample())
                .as("the over-ask, when it is larger").isEqualTo(300);
        assertThat(new CandidateQuery(ClaimSelection.ELIGIBLE, 50, 2, new CandidateStripe(1, 2), Set.of()).sample())
                .as("rows granted one by one: the over-ask alone").isEqualTo(100);
        assertThat(new CandidateQuery(ClaimSelection.ELIGIBLE, 50, 2, blocks, Set.of(7L, 8L)).stripedWindow())
                .as("the window holds the sample and the excluded rows of every stripe").isEqualTo((178 + 2) * 2);
    }

    @Test
    void aWorkerWhoseManagerGrantsBlocksAsksForWholeBlocksOfItsStripe() {
        List<Long> ids = enqueue(40);
        Worker worker = new Worker(Optional.of(new PeerRank(1, 2)), 4);
        LeasedOutboxClaimStore leased = LeasedOutboxClaimStore.open(rows, worker, clock);
        CandidateStripe stripe = new CandidateStripe(1, 2, 4);
        List<Long> own = ids.stream().filter(stripe::contains).toList();

        List<OutboxClaim> claims = leased.claimPending(request("w1", 4));

        assertThat(worker.lastAsked()).as("asked oldest first, its stripe's blocks").startsWith(own.subList(0, 8).toArray(Long[]::new));
        assertThat(idsOf(claims)).as("one whole block of the stripe").containsExactlyElementsOf(own.subList(0, 4))
                .allMatch(id -> id / 4 == own.get(0) / 4);
    }

    @Test
    void aRankedWorkerDoesNotChangeWhatTheStoreDecides() {
        List<Long> ids = enqueue(4);
        LeasedOutboxClaimStore ranked = LeasedOutboxClaimStore.open(rows, new Worker(Optional.of(new PeerRank(0, 2))), clock);
        LeasedOutboxClaimStore other = LeasedOutboxClaimStore.open(rows, new Worker(Optional.of(new PeerRank(0, 2))), clock);

        List<Long> a = idsOf(ranked.claimPending(request("w0", 4)));
        List<Long> b = idsOf(other.claimPending(request("w1", 4)));

        assertThat(a).as("two workers that think they have the same rank still never share a row")
                .containsExactlyInAnyOrderElementsOf(ids);
        assertThat(b).isEmpty();
        assertThat(rows.find(ids.get(0)).map(OutboxEntry::claimOwner).orElseThrow()).hasValue("w0");
    }
}
