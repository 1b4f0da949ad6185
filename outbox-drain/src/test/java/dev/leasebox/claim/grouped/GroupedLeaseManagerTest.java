package dev.leasebox.claim.grouped;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The grouping logic over the in-memory coordinator, with a hand-moved clock and no background reaper:
 * which group lease a row is granted under, when the delegate is asked, and what a row's fence and
 * deadline are.
 */
class GroupedLeaseManagerTest {

    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration LINGER = Duration.ofMillis(500);

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    /** A delegate counting its calls (the round trips a real coordinator would take). */
    static final class Counting extends ForwardingLeaseManager implements PeerRanking {
        int acquires;
        int renewals;
        int releases;
        final List<String> askedFor = new ArrayList<>();
        Optional<PeerRank> rank = Optional.empty();

        Counting(LeaseManager delegate) {
            super(delegate);
        }

        @Override
        public List<Lease> acquire(LeaseRequest request) {
            acquires++;
            askedFor.addAll(request.keys());
            return super.acquire(request);
        }

        @Override
        public List<Lease> renew(Collection<Lease> leases) {
            renewals++;
            return super.renew(leases);
        }

        @Override
        public List<Lease> release(Collection<Lease> leases) {
            releases++;
            return super.release(leases);
        }

        @Override
        public Optional<PeerRank> peerRank() {
            return rank;
        }

        @Override
        public void close() {
            // the coordinator is shared by the test's managers
        }
    }

    private Counting counting() {
        return new Counting(coordinator);
    }

    private GroupedLeaseManager grouped(LeaseManager delegate, int block, int groups, Duration linger) {
        GroupedLeaseManager manager = GroupedLeaseManager.builder(delegate, new LeaseGrouping(block, groups, linger))
                .clock(clock).reapInterval(Duration.ZERO).open();
        opened.add(manager);
        return manager;
    }

    private static List<String> rows(long from, long to) {
        return LongStream.range(from, to).mapToObj(LeasedOutboxClaimStore::leaseKey).toList();
    }

    private static LeaseRequest request(List<String> keys, String owner) {
        return new LeaseRequest(keys, owner, TTL);
    }

    @Test
    void rowsOfOneBlockShareTheFenceOfOneGroupLeaseAskedForInOneCall() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);

        List<Lease> granted = manager.acquire(request(rows(0, 10), "a"));

        assertThat(granted).extracting(Lease::key).containsExactlyElementsOf(rows(0, 10));
        assertThat(delegate.acquires).as("one round trip for the three groups").isEqualTo(1);
        assertThat(delegate.askedFor).containsExactly("row-group-0", "row-group-1", "row-group-2");
        assertThat(granted.subList(0, 4)).extracting(Lease::fence).containsOnly(granted.get(0).fence());
        assertThat(granted.get(4).fence()).isNotEqualTo(granted.get(0).fence());
        assertThat(granted).allMatch(lease -> lease.owner().equals("a") && lease.ttl().equals(TTL));
        assertThat(manager.rowBlock()).isEqualTo(4);
        assertThat(manager.groupKey(35)).as("(35 / 4) mod 8").isEqualTo("row-group-0");
    }

    @Test
    void aHeldGroupIsNotGrantedToAnotherManagerNorAnyRowOfIt() {
        GroupedLeaseManager a = grouped(counting(), 4, 8, LINGER);
        GroupedLeaseManager b = grouped(counting(), 4, 8, LINGER);

        assertThat(a.acquire(request(rows(0, 1), "a"))).hasSize(1);

        assertThat(b.acquire(request(rows(0, 4), "b"))).as("rows 0..3 share a's group").isEmpty();
        assertThat(b.acquire(request(rows(32, 33), "b"))).as("row 32 maps to group 0 too: (32 / 4) mod 8").isEmpty();
        assertThat(b.acquire(request(rows(4, 5), "b"))).as("another group").hasSize(1);
    }

    @Test
    void aLingeringGroupGrantsItsOtherRowsWithNoRoundTripButNeverARowTwiceUnderOneFence() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);
        Lease first = manager.acquire(request(rows(0, 1), "a")).get(0);
        assertThat(manager.release(List.of(first))).containsExactly(first);
        assertThat(delegate.releases).as("the idle group lingers").isZero();

        List<Lease> next = manager.acquire(request(rows(0, 2), "a"));

        assertThat(next).extracting(Lease::key).as("row 0 was granted under this fence already").containsExactly("row-1");
        assertThat(next.get(0).fence()).isEqualTo(first.fence());
        assertThat(delegate.acquires).isEqualTo(1);

        manager.release(next);
        clock.advance(LINGER);
        manager.reap();
        assertThat(delegate.releases).as("released when the linger ended").isEqualTo(1);
        assertThat(coordinator.heldCount()).isZero();
        Lease again = manager.acquire(request(rows(0, 1), "a")).get(0);
        assertThat(again.fence()).as("row 0 again, under a new grant of its group").isGreaterThan(first.fence());
    }

    @Test
    void withoutALingerTheGroupIsReleasedWithItsLastRow() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, Duration.ZERO);
        List<Lease> granted = manager.acquire(request(rows(0, 3), "a"));

        assertThat(manager.release(granted.subList(0, 2))).hasSize(2);
        assertThat(coordinator.heldCount()).as("row 2 still holds the group").isEqualTo(1);
        assertThat(manager.release(granted.subList(2, 3))).hasSize(1);

        assertThat(coordinator.heldCount()).isZero();
        assertThat(delegate.releases).isEqualTo(1);
        assertThat(manager.release(granted)).as("stale releases change nothing").isEmpty();
    }

    @Test
    void aLingerServesOnlyTheBlocksOfThisManagersStripeWhenItKnowsItsRank() {
        Counting delegate = counting();
        delegate.rank = Optional.of(new PeerRank(0, 2));
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);
        List<Lease> granted = manager.acquire(request(List.of("row-0", "row-4"), "a")); // blocks 0 (own) and 1 (the peer's)

        manager.release(granted);

        assertThat(coordinator.heldCount()).as("block 1 went back at once, block 0 lingers").isEqualTo(1);
        assertThat(delegate.releases).isEqualTo(1);
    }

    @Test
    void theRequestsLimitCountsRowsAndRowsBeyondItStayGrantableUnderTheFence() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);

        List<Lease> granted = manager.acquire(request(rows(0, 12), "a").limitedTo(5));

        assertThat(granted).extracting(Lease::key).containsExactlyElementsOf(rows(0, 5));
        assertThat(delegate.askedFor).as("the fewest groups covering five rows").containsExactly("row-group-0", "row-group-1");
        List<Lease> rest = manager.acquire(request(rows(5, 8), "a"));
        assertThat(rest).extracting(Lease::key).containsExactlyElementsOf(rows(5, 8));
        assertThat(rest).extracting(Lease::fence).containsOnly(granted.get(4).fence());
        assertThat(delegate.acquires).isEqualTo(1);
    }

    @Test
    void groupsHeldByOthersAreSkippedInANextRound() {
        GroupedLeaseManager other = grouped(counting(), 4, 8, LINGER);
        other.acquire(request(rows(0, 1), "b"));
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);

        List<Lease> granted = manager.acquire(request(rows(0, 12), "a").limitedTo(4));

        assertThat(granted).extracting(Lease::key).containsExactlyElementsOf(rows(4, 8));
        assertThat(delegate.acquires).isEqualTo(2);
    }

    @Test
    void aRowsDeadlineIsItsGroupLeasesAndAGroupConfirmedLongAgoIsRenewedBeforeItGrants() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);
        Lease first = manager.acquire(request(rows(0, 1), "a")).get(0);
        assertThat(first.localDeadline()).isEqualTo(clock.instant().plus(TTL).minus(LeaseRequest.defaultSafetyMargin(TTL)));

        clock.advance(TTL.dividedBy(2).plusMillis(1));
        Lease second = manager.acquire(request(rows(1, 2), "a")).get(0);

        assertThat(delegate.renewals).as("half a ttl passed: renewed, not granted from the old confirmation").isEqualTo(1);
        assertThat(second.fence()).isEqualTo(first.fence());
        assertThat(second.grantedAt()).isEqualTo(clock.instant());
        assertThat(manager.renew(List.of(first))).extracting(Lease::localDeadline).containsExactly(second.localDeadline());
    }

    @Test
    void renewingRowsRenewsTheirGroupOnceAndLosingTheGroupLosesEveryRowOfIt() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        manager.addLeaseLossListener(losses::add);
        List<Lease> granted = manager.acquire(request(rows(0, 4), "a"));

        clock.advance(Duration.ofSeconds(5));
        List<Lease> renewed = manager.renew(granted);
        assertThat(renewed).hasSize(4).allMatch(lease -> lease.grantedAt().equals(clock.instant()));
        assertThat(delegate.renewals).isEqualTo(1);

        clock.advance(TTL); // the group lease passed its deadline, and expired on the coordinator
        assertThat(manager.renew(renewed.subList(0, 1))).isEmpty();

        assertThat(losses).hasSize(1);
        assertThat(losses.get(0).leases()).extracting(Lease::key).as("every row of the group").containsExactlyElementsOf(rows(0, 4));
        assertThat(losses.get(0).cause()).isEqualTo(LeaseLoss.Cause.DEADLINE_PASSED);
        GroupedLeaseManager other = grouped(counting(), 4, 8, LINGER);
        assertThat(other.acquire(request(rows(0, 1), "b")).get(0).fence()).isGreaterThan(granted.get(0).fence());
    }

    @Test
    void rowsNotRenewedLapseAndTheirGroupIsReleased() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        manager.addLeaseLossListener(losses::add);
        manager.acquire(request(rows(0, 2), "a"));

        clock.advance(TTL);
        manager.reap();

        assertThat(losses).singleElement().satisfies(loss -> {
            assertThat(loss.cause()).isEqualTo(LeaseLoss.Cause.DEADLINE_PASSED);
            assertThat(loss.leases()).extracting(Lease::key).containsExactlyElementsOf(rows(0, 2));
        });
        assertThat(delegate.releases).isEqualTo(1);
    }

    @Test
    void aLossTheDelegateReportsForAGroupIsReportedForItsRows() {
        GroupedLeaseManager manager = grouped(coordinator, 4, 8, LINGER);
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        manager.addLeaseLossListener(losses::add);
        List<Lease> rowsHeld = manager.acquire(request(rows(0, 3), "a"));
        Lease group = new Lease("row-group-0", "a", rowsHeld.get(0).fence(), rowsHeld.get(0).grantedAt(), TTL,
                rowsHeld.get(0).localDeadline());

        coordinator.loseFenceCounter(0); // the coordinator forgets the group lease
        coordinator.renew(List.of(group)); // and says so to its listeners

        assertThat(losses).singleElement().satisfies(loss ->
                assertThat(loss.leases()).extracting(Lease::key).containsExactlyElementsOf(rows(0, 3)));
        assertThat(manager.renew(rowsHeld)).isEmpty();
    }

    @Test
    void otherKeysGoToTheDelegateAsTheyAreAndGroupKeysAreRefused() {
        Counting delegate = counting();
        GroupedLeaseManager manager = grouped(delegate, 4, 8, LINGER);

        List<Lease> slots = manager.acquire(request(List.of("slot-1", "slot-2"), "a"));
        assertThat(slots).extracting(Lease::key).containsExactly("slot-1", "slot-2");
        assertThat(manager.renew(slots)).hasSize(2);
        assertThat(manager.release(slots)).hasSize(2);
        List<Lease> mixed = manager.acquire(request(List.of("row-1", "slot-3"), "a"));
        assertThat(mixed).extracting(Lease::key).containsExactlyInAnyOrder("row-1", "slot-3");

        assertThatThrownBy(() -> manager.acquire(request(List.of("row-group-3"), "a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row-group-");
    }

    @Test
    void closingReleasesEveryGroupStillHeld() {
        GroupedLeaseManager manager = grouped(counting(), 4, 8, LINGER);
        manager.acquire(request(rows(0, 9), "a"));
        assertThat(coordinator.heldCount()).isEqualTo(3);

        manager.close();

        assertThat(coordinator.heldCount()).isZero();
    }

    @Test
    void groupingFollowsTheBackendAndItsOptions() {
        assertThat(LeaseGrouping.forBackend("hazelcast", java.util.Map.of())).isEqualTo(LeaseGrouping.DEFAULT);
        assertThat(LeaseGrouping.forBackend("zookeeper", java.util.Map.of())).isEqualTo(LeaseGrouping.DEFAULT);
        assertThat(LeaseGrouping.forBackend("zookeeper", java.util.Map.of("row-groups", "0"))).isEqualTo(LeaseGrouping.NONE);
        assertThat(LeaseGrouping.forBackend("zookeeper", java.util.Map.of("row-group-block", "128"))).isEqualTo(LeaseGrouping.DEFAULT);
        assertThat(LeaseGrouping.forBackend("redis", java.util.Map.of())).isEqualTo(LeaseGrouping.NONE);
        assertThat(LeaseGrouping.forBackend("redis", java.util.Map.of("row-group-block", "64")))
                .isEqualTo(new LeaseGrouping(64, 4096, Duration.ofMillis(500)));
        assertThat(LeaseGrouping.forBackend("hazelcast", java.util.Map.of("row-groups", "0")).grouped()).isFalse();
        assertThat(LeaseGrouping.forBackend("zookeeper", java.util.Map.of("row-group-linger", "0", "row-groups", "16")))
                .isEqualTo(new LeaseGrouping(128, 16, Duration.ZERO));
        assertThat(LeaseGrouping.backendOptions(java.util.Map.of("row-group-block", "64", "session-ttl", "10s")))
                .containsOnlyKeys("session-ttl");
        assertThatThrownBy(() -> LeaseGrouping.forBackend("redis", java.util.Map.of("row-group-linger", "500")))
                .hasMessage("row-group-linger: '500' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
        assertThatThrownBy(() -> LeaseGrouping.forBackend("redis", java.util.Map.of("row-group-block", "0")))
                .hasMessage("row-group-block must be in [1, 1024], was 0");
        assertThatThrownBy(() -> LeaseGrouping.forBackend("redis", java.util.Map.of("row-group-linger", "11s")))
                .hasMessage("row-group-linger must be in [0, 10s], was 11s");
        assertThatThrownBy(() -> LeaseGrouping.forBackend("redis", java.util.Map.of("row-groups", "70000")))
                .hasMessage("row-groups must be in [0, 65536] (0: a lease per row), was 70000");
        assertThatThrownBy(() -> LeaseGrouping.forBackend("redis", java.util.Map.of("row-groups", "many")))
                .hasMessage("row-groups: expects a whole number, was 'many'");
    }
}
