package dev.leasebox.lease.contract;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManager;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lease contract every {@link LeaseManager} passes: extend this class (only this one) in the
 * backend's test and implement {@link #newManager()}. It inherits the granting tests of
 * {@link LeaseGrantContract} and adds renewal, stale callers, expiry, loss and a concurrent fuzz.
 *
 * <p>Hooks (override where the backend differs; all but {@code newManager} have defaults):
 * <ul>
 *   <li>{@link #newManager()} — a new, independent client of the backend under test, as another node
 *       would have; the kit closes every manager it made after each test.</li>
 *   <li>{@link #leaseTtl()} — the ttl the kit requests in expiry tests (default 2 s); a backend whose
 *       coordinator fixes the duration returns the one it enforces.</li>
 *   <li>{@link #longLeaseTtl()} — the ttl of leases that must outlive the test, and of the fuzz (10 s).</li>
 *   <li>{@link #advanceTime(Duration)} — lets time pass on the coordinator's clock; real backends keep
 *       the default (no-op: real time passes while the kit polls with Awaitility).</li>
 *   <li>{@link #coordinatorClock()} — the clock {@code advanceTime} moves (default the system clock).</li>
 *   <li>{@link #expiryTimeout()} — how long the kit waits for a lease to expire (default ttl × 2 + 3 s).</li>
 *   <li>{@link #fuzzThreads()}, {@link #fuzzRounds()} — the size of the concurrent fuzz (4 × 40).</li>
 * </ul>
 * Different owners are always exercised through different managers, the way different nodes would
 * be; a backend may bind ownership to its client session (Hazelcast) and still pass. Keys carry a
 * random per-test prefix, so a shared coordinator is fine.
 */
public abstract class LeaseManagerContract extends LeaseGrantContract {

    @Test
    void renewalByTheHolderKeepsTheKeyPastTheOriginalTtl() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("renewed");
        Lease lease = acquireFree(a, key, owner(), leaseTtl());

        for (int i = 0; i < 3; i++) {
            letTimePass(leaseTtl().dividedBy(2));
            List<Lease> renewed = a.renew(List.of(lease));
            assertThat(renewed).as("renewal %d", i).hasSize(1);
            assertThat(renewed.get(0).sameGrant(lease)).isTrue();
            assertThat(renewed.get(0).localDeadline()).isAfterOrEqualTo(lease.localDeadline())
                    .as("a renewed deadline is never past the coordinator's expiry")
                    .isBeforeOrEqualTo(coordinatorClock().instant().plus(leaseTtl()));
            lease = renewed.get(0);
            assertThat(b.acquire(request(List.of(key), owner(), leaseTtl())))
                    .as("another manager after %s of the original %s ttl", leaseTtl().dividedBy(2).multipliedBy(i + 1), leaseTtl())
                    .isEmpty();
        }
    }

    /**
     * The drain renews one lease from several threads at once (its renewal thread and its claim loops): every
     * such renewal comes back renewed, none reports the lease lost, and the lease is still held and releasable.
     */
    @Test
    void theHoldersOwnConcurrentRenewalsAreAllRenewedAndReportNothing() throws Exception {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        a.addLeaseLossListener(losses::add);
        String key = key("renewed-at-once");
        Lease lease = acquireFree(a, key, owner(), longLeaseTtl());
        int callers = 3;
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(callers);
        try {
            for (int round = 0; round < 10; round++) {
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(callers);
                List<java.util.concurrent.Future<List<Lease>>> renewals = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    renewals.add(threads.submit(() -> {
                        start.await(10, java.util.concurrent.TimeUnit.SECONDS);
                        return a.renew(List.of(lease));
                    }));
                }
                for (java.util.concurrent.Future<List<Lease>> renewal : renewals) {
                    assertThat(renewal.get(30, java.util.concurrent.TimeUnit.SECONDS)).as("round %d: a concurrent renewal", round)
                            .singleElement().matches(lease::sameGrant);
                }
                assertThat(losses).as("round %d: losses reported", round).isEmpty();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(b.acquire(request(List.of(key), owner(), longLeaseTtl()))).as("another manager while it is held").isEmpty();
        assertThat(a.release(List.of(lease))).as("the lease still releases").hasSize(1);
        assertThat(b.acquire(request(List.of(key), owner(), longLeaseTtl()))).as("another manager after the release").hasSize(1);
    }

    @Test
    void anUnrenewedLeaseExpiresAndTheKeyBecomesGrantable() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("expires");
        Lease first = acquireFree(a, key, owner(), leaseTtl());

        Lease second = regrantAfterExpiry(key, b, owner(), longLeaseTtl());

        assertThat(second.key()).isEqualTo(key);
        assertThat(second.fence()).isGreaterThan(first.fence());
    }

    @Test
    void aStaleHoldersRenewAndReleaseChangeNothingAfterExpiryAndRegrant() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("stale");
        Lease stale = acquireFree(a, key, owner(), leaseTtl());
        Lease current = regrantAfterExpiry(key, b, owner(), longLeaseTtl());

        assertThat(a.renew(List.of(stale))).isEmpty();
        assertThat(a.release(List.of(stale))).isEmpty();

        assertThat(b.renew(List.of(current))).as("the new holder still holds it").hasSize(1);
        assertThat(manager().acquire(request(List.of(key), owner(), longLeaseTtl()))).isEmpty();
    }

    @Test
    void renewAndReleaseWithAWrongFenceOrOwnerChangeNothing() {
        LeaseManager b = manager();
        String key = key("forged");
        Lease current = acquireFree(b, key, owner(), longLeaseTtl());
        Lease higherFence = withFence(current, current.fence() + 1_000_000);
        Lease lowerFence = current.fence() > 1 ? withFence(current, current.fence() - 1) : higherFence;
        Lease otherOwner = new Lease(key, owner(), current.fence(), current.grantedAt(), current.ttl(), current.localDeadline());

        for (Lease forged : List.of(higherFence, lowerFence, otherOwner)) {
            assertThat(b.release(List.of(forged))).as("release of %s", forged).isEmpty();
            assertThat(b.renew(List.of(forged))).as("renew of %s", forged).isEmpty();
        }

        assertThat(manager().acquire(request(List.of(key), owner(), longLeaseTtl()))).as("still held").isEmpty();
        assertThat(b.release(List.of(current))).as("the real holder releases it").hasSize(1);
    }

    @Test
    void aBatchRenewReturnsOnlyTheLeasesStillHeld() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String lostKey = key("batch-lost");
        String keptKey = key("batch-kept");
        Lease lost = acquireFree(a, lostKey, owner(), leaseTtl());
        Lease kept = acquireFree(a, keptKey, owner(), longLeaseTtl());
        regrantAfterExpiry(lostKey, b, owner(), longLeaseTtl());

        List<Lease> renewed = a.renew(List.of(lost, kept));

        assertThat(renewed).hasSize(1);
        assertThat(renewed.get(0).sameGrant(kept)).isTrue();
    }

    @Test
    void theOldHolderIsToldOfALeaseThatExpiredAndWasRegrantedElsewhere() {
        LeaseManager a = manager();
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        a.addLeaseLossListener(losses::add);
        LeaseManager b = manager();
        String key = key("lost");
        Lease stale = acquireFree(a, key, owner(), leaseTtl());
        regrantAfterExpiry(key, b, owner(), longLeaseTtl());

        assertThat(a.renew(List.of(stale))).isEmpty();

        await("the lease loss listener to be told").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .untilAsserted(() -> assertThat(losses)
                        .flatExtracting(LeaseLoss::leases)
                        .anySatisfy(l -> assertThat(l.sameGrant(stale)).isTrue()));
        assertThat(losses).allSatisfy(loss -> assertThat(loss.detail()).isNotBlank());
    }

    @Test
    void listenersOfTheNewHolderAreNotToldWhenAStaleHolderFails() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<LeaseLoss> newHolderLosses = new CopyOnWriteArrayList<>();
        b.addLeaseLossListener(newHolderLosses::add);
        String key = key("quiet");
        Lease stale = acquireFree(a, key, owner(), leaseTtl());
        Lease current = regrantAfterExpiry(key, b, owner(), longLeaseTtl());

        a.renew(List.of(stale));
        a.release(List.of(stale));

        assertThat(b.renew(List.of(current))).hasSize(1);
        assertThat(newHolderLosses).isEmpty();
    }

    @Test
    void aReleasedLeaseCannotBeRenewed() {
        LeaseManager a = manager();
        Lease lease = acquireFree(a, key("released-then-renewed"), owner(), longLeaseTtl());
        assertThat(a.release(List.of(lease))).hasSize(1);

        assertThat(a.renew(List.of(lease))).isEmpty();
        assertThat(a.release(List.of(lease))).as("a second release changes nothing").isEmpty();
    }

    @Test
    void releasingPartOfABatchLeavesTheRestHeld() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<String> keys = keys("part", 3);
        List<Lease> held = a.acquire(request(keys, owner(), longLeaseTtl()));
        assertThat(held).hasSize(3);
        Lease first = held.stream().filter(l -> l.key().equals(keys.get(0))).findFirst().orElseThrow();

        assertThat(a.release(List.of(first))).hasSize(1);

        assertThat(b.acquire(request(keys, owner(), longLeaseTtl()))).extracting(Lease::key).containsExactly(keys.get(0));
        assertThat(a.renew(held)).extracting(Lease::key).containsExactlyInAnyOrder(keys.get(1), keys.get(2));
    }

    @Test
    void theLeasesOfAClosedManagerBecomeGrantableToOthers() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("closed-holder");
        Lease lease = acquireFree(a, key, owner(), leaseTtl());

        closeManager(a);

        Lease next = regrantAfterExpiry(key, b, owner(), longLeaseTtl());
        assertThat(next.fence()).isGreaterThan(lease.fence());
    }

    @Test
    void concurrentManagersNeverOverlapAndFencesStrictlyGrowPerKey() throws Exception {
        int threads = fuzzThreads();
        List<String> owners = new ArrayList<>();
        List<LeaseManager> managers = fuzzManagers(threads, owners);
        LeaseFuzz fuzz = new LeaseFuzz(fuzzKeys(), longLeaseTtl());

        LeaseFuzz.Result result = fuzz.run(managers, owners, fuzzRounds(), Duration.ofMinutes(2));

        assertThat(result.violations()).isEmpty();
        assertThat(result.grants()).as("grants made (a fuzz that grants nothing proves nothing)").isGreaterThan(threads);
    }

    @Test
    void shortLeasesWhoseHoldersOverrunThemRaceTakeoversYetNeverOverlapWhileValid() throws Exception {
        int threads = fuzzThreads();
        List<String> owners = new ArrayList<>();
        List<LeaseManager> managers = fuzzManagers(threads, owners);
        Duration ttl = racingTtl();
        Duration longestHold = ttl.multipliedBy(3).plus(takeoverDelay());
        java.time.Clock deadlines = coordinatorClock() instanceof dev.leasebox.testkit.MutableClock
                ? coordinatorClock() : dev.leasebox.lease.MonotonicClock.system();
        RacingLeaseFuzz fuzz = new RacingLeaseFuzz(fuzzKeys(), ttl, longestHold, deadlines);

        RacingLeaseFuzz.Result result = fuzz.run(managers, owners, 10, Duration.ofSeconds(45));

        assertThat(result.violations()).isEmpty();
        assertThat(result.grants()).as("grants made").isGreaterThan(threads);
        if (!(coordinatorClock() instanceof dev.leasebox.testkit.MutableClock)) {
            assertThat(result.takeovers()).as("takeovers of leases whose holders overran them (%s grants)", result.grants())
                    .isPositive();
        }
    }

    /** {@code count} managers, as many nodes, and their owners (added to {@code owners}). */
    private List<LeaseManager> fuzzManagers(int count, List<String> owners) {
        List<LeaseManager> managers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            managers.add(manager());
            owners.add(owner());
        }
        return managers;
    }

    private static Lease withFence(Lease lease, long fence) {
        return new Lease(lease.key(), lease.owner(), fence, lease.grantedAt(), lease.ttl(), lease.localDeadline());
    }
}
