package dev.leasebox.dist;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rows grouped over a real ZooKeeper server, renewed as the drain renews them: its renewal thread renews the
 * rows it holds while two claim loops ask for more rows of the same group, whose lease was confirmed more than
 * half a ttl ago, so each claim renews the group first. Over several rounds nothing may be reported lost, every
 * renewal must come back renewed and every claim granted; another worker is refused the group until its rows
 * are released, then granted it.
 */
class ZooKeeperGroupedRenewalIT {

    private static final Duration LEASE = Duration.ofSeconds(4);
    private static final int ROUNDS = 4;
    private static final Map<String, String> GROUPING = Map.of(LeaseGrouping.GROUPS_OPTION, "64",
            LeaseGrouping.BLOCK_OPTION, "16", LeaseGrouping.LINGER_OPTION, "0");
    private static EmbeddedCoordinator zooKeeper;
    private final List<LeaseManager> managers = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startZooKeeper() {
        zooKeeper = EmbeddedCoordinators.start("zookeeper", Map.of());
    }

    @AfterAll
    static void stopZooKeeper() {
        zooKeeper.close();
    }

    @AfterEach
    void closeManagers() {
        threads.shutdownNow();
        managers.forEach(LeaseManager::close);
    }

    private GroupedLeaseManager worker(String namespace) {
        Map<String, String> options = new LinkedHashMap<>(zooKeeper.clientOptions());
        options.putAll(GROUPING);
        LeaseManager manager = LeaseGrouping.open("zookeeper", new LeaseBackendSettings(zooKeeper.address(), namespace, LEASE, options),
                MonotonicClock.system());
        managers.add(manager);
        return (GroupedLeaseManager) manager;
    }

    private static LeaseRequest rows(String owner, long... ids) {
        List<String> keys = new ArrayList<>();
        for (long id : ids) {
            keys.add(LeasedOutboxClaimStore.leaseKey(id));
        }
        return new LeaseRequest(keys, owner, LEASE);
    }

    @Test
    void theRenewalThreadAndTwoClaimLoopsRenewingOneGroupAtOnceLoseNothing() throws Exception {
        String namespace = "leasebox-grouped-renewal-" + System.nanoTime();
        GroupedLeaseManager holder = worker(namespace);
        GroupedLeaseManager other = worker(namespace);
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        holder.addLeaseLossListener(losses::add);
        List<Lease> held = new ArrayList<>(holder.acquire(rows("holder", 0, 1, 2)));
        assertThat(held).hasSize(3);
        Clock clock = MonotonicClock.system();
        long next = 3;

        for (int round = 0; round < ROUNDS; round++) {
            Lease confirmed = held.get(0);
            await("the group's lease to be confirmed more than half a ttl ago").atMost(LEASE)
                    .until(() -> clock.instant().isAfter(confirmed.grantedAt().plus(LEASE.dividedBy(2)).plusMillis(100)));
            CyclicBarrier start = new CyclicBarrier(3);
            List<Lease> renewing = List.copyOf(held);
            Future<List<Lease>> renewal = threads.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                return holder.renew(renewing);
            });
            long first = next++;
            long second = next++;
            Future<List<Lease>> claim = threads.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                return holder.acquire(rows("holder", first));
            });
            Future<List<Lease>> otherClaim = threads.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                return holder.acquire(rows("holder", second));
            });

            List<Lease> renewed = renewal.get(30, TimeUnit.SECONDS);
            List<Lease> claimed = claim.get(30, TimeUnit.SECONDS);
            List<Lease> otherClaimed = otherClaim.get(30, TimeUnit.SECONDS);
            assertThat(losses).as("round %d: rows reported lost while their group was held", round).isEmpty();
            assertThat(renewed).as("round %d: the renewal thread's rows renewed", round).hasSize(renewing.size());
            assertThat(claimed).as("round %d: the first claim loop's row granted", round).hasSize(1);
            assertThat(otherClaimed).as("round %d: the second claim loop's row granted", round).hasSize(1);
            held = new ArrayList<>(renewed);
            held.addAll(claimed);
            held.addAll(otherClaimed);
            assertThat(other.acquire(rows("other", 14))).as("round %d: another worker is refused the group", round).isEmpty();
        }

        assertThat(holder.release(held)).as("every row released").hasSize(held.size());
        assertThat(other.acquire(rows("other", 15))).as("another worker takes the group once its rows are released").hasSize(1);
        assertThat(losses).isEmpty();
    }
}
