package dev.leasebox.claim.leased;

import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code releaseInBackground}: completeAll returns before the release round trip, the release runs on
 * the store's own thread, the rows wait out of this store's candidates until it has, and close waits
 * for it.
 */
class BackgroundReleaseTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = MutableClock.startingAt2026();
    private final InMemoryOutboxStore rows = new InMemoryOutboxStore(clock);
    private final InMemoryLeaseManager coordinator = new InMemoryLeaseManager(clock);
    private final CountDownLatch releasesMayRun = new CountDownLatch(1);
    private final GatedReleases manager = new GatedReleases();
    private LeasedOutboxClaimStore store;

    /** Releases wait for the gate, and say which thread sent them; acquires are recorded. */
    private final class GatedReleases extends ForwardingLeaseManager {
        final List<String> releasingThreads = new CopyOnWriteArrayList<>();
        final List<LeaseRequest> requests = new CopyOnWriteArrayList<>();

        GatedReleases() {
            super(coordinator);
        }

        @Override
        public List<Lease> acquire(LeaseRequest request) {
            requests.add(request);
            return super.acquire(request);
        }

        @Override
        public List<Lease> release(Collection<Lease> leases) {
            releasingThreads.add(Thread.currentThread().getName());
            try {
                assertThat(releasesMayRun.await(10, TimeUnit.SECONDS)).as("the test opened the gate").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.release(leases);
        }

        List<Long> lastAsked() {
            return requests.get(requests.size() - 1).keys().stream()
                    .map(key -> LeasedOutboxClaimStore.entryIdOf(key).orElseThrow()).toList();
        }
    }

    @AfterEach
    void closeStore() {
        releasesMayRun.countDown();
        if (store != null) {
            store.close();
        }
    }

    private List<Long> enqueue(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> rows.enqueue(OutboxMessage.of("t", new byte[0]).withIdempotencyKey("e" + i)).id()).toList();
    }

    private boolean keyIsFree(long id) {
        List<Lease> probe = coordinator.acquire(new LeaseRequest(List.of(LeasedOutboxClaimStore.leaseKey(id)), "probe", LEASE));
        coordinator.release(probe);
        return !probe.isEmpty();
    }

    private List<OutboxClaim> claim(int batch) {
        return store.claimPending(new ClaimRequest("w1", batch, LEASE));
    }

    private void handBack(List<OutboxClaim> claims) {
        store.completeAll(claims.stream().map(c -> new ClaimCompletion(c, new Completion.Released("handed back"))).toList());
    }

    @Test
    void completeAllReturnsBeforeTheReleaseWhichRunsOnTheStoresThreadAndTheRowsWaitOutOfItsCandidates() {
        store = LeasedOutboxClaimStore.builder(rows, manager, clock).releaseInBackground(true).open();
        List<Long> ids = enqueue(10);
        List<OutboxClaim> first = claim(3);
        assertThat(first).extracting(OutboxClaim::entryId).containsExactlyElementsOf(ids.subList(0, 3));

        handBack(first);

        assertThat(ids.subList(0, 3)).as("completeAll returned with the leases still held").noneMatch(this::keyIsFree);
        claim(3);
        assertThat(manager.lastAsked()).as("eligible again, but this store still holds their keys")
                .doesNotContainAnyElementsOf(ids.subList(0, 3));

        releasesMayRun.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> ids.subList(0, 3).stream().allMatch(this::keyIsFree));
        assertThat(manager.releasingThreads).first().isEqualTo("leasebox-lease-release");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            claim(3);
            assertThat(manager.lastAsked()).containsAll(ids.subList(0, 3));
        });
    }

    @Test
    void closeWaitsForTheReleasesStillPending() throws InterruptedException {
        store = LeasedOutboxClaimStore.builder(rows, manager, clock).releaseInBackground(true).open();
        enqueue(5);
        handBack(claim(5));
        CountDownLatch closed = new CountDownLatch(1);
        Thread closer = new Thread(() -> {
            store.close();
            closed.countDown();
        });
        closer.start();

        assertThat(closed.await(300, TimeUnit.MILLISECONDS)).as("close waits while a release is pending").isFalse();
        releasesMayRun.countDown();
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(coordinator.heldCount()).as("released before close returned").isZero();
    }

    @Test
    void byDefaultTheCompletingThreadReleasesBeforeCompleteAllReturns() {
        releasesMayRun.countDown();
        store = LeasedOutboxClaimStore.open(rows, manager, clock);
        List<Long> ids = enqueue(3);

        handBack(claim(3));

        assertThat(ids).allMatch(this::keyIsFree);
        assertThat(manager.releasingThreads).containsOnly(Thread.currentThread().getName());
    }
}
