package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseRequest;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder renewing its own lease from several threads at once, as the drain does (its renewal thread and
 * every claim loop): each renewal must come back renewed, no loss may be reported, and the manager must
 * keep the lease, whose node stays owned by its session under the grant's fence. Then the lease still
 * releases, and another manager can take the key. Real ZooKeeper server.
 */
class ConcurrentRenewalIT {

    private static final int ROUNDS = 25;
    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    static final ZooKeeperServerExtension zk = new ZooKeeperServerExtension();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @ParameterizedTest(name = "{0} renewals at once")
    @ValueSource(ints = {2, 4})
    void theHoldersOwnConcurrentRenewalsNeverReportItsLeaseLost(int callers) throws Exception {
        String namespace = "leasebox-concurrent-renew-" + callers;
        ZooKeeperLeaseManager holder = zk.manager(zk.config(namespace));
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        holder.addLeaseLossListener(new LeaseLossListener() {
            @Override
            public void leasesLost(LeaseLoss loss) {
                losses.add(loss);
            }
        });
        List<Lease> leases = holder.acquire(new LeaseRequest(List.of("group-1", "group-2"), "holder", TTL));
        assertThat(leases).hasSize(2);
        Lease lease = leases.stream().filter(l -> l.key().equals("group-1")).findFirst().orElseThrow();

        for (int round = 0; round < ROUNDS; round++) {
            CyclicBarrier start = new CyclicBarrier(callers);
            List<Future<List<Lease>>> renewals = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                renewals.add(threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return holder.renew(leases);
                }));
            }
            for (Future<List<Lease>> renewal : renewals) {
                assertThat(renewal.get(30, TimeUnit.SECONDS)).as("round %d: every caller's renewal came back renewed", round)
                        .hasSize(2);
            }
            assertThat(losses).as("round %d: losses reported", round).isEmpty();
            assertThat(holder.heldCount()).as("round %d: the manager still holds both leases", round).isEqualTo(2);
        }

        Stat stat = zk.plainClient().checkExists().forPath("/" + namespace + "/leases/group-1");
        assertThat(stat.getEphemeralOwner()).isEqualTo(holder.curator().getZookeeperClient().getZooKeeper().getSessionId());
        assertThat(stat.getCzxid()).isEqualTo(Fences.czxidOf(lease.fence()));
        assertThat(holder.release(List.of(lease))).as("the lease still releases").hasSize(1);
        ZooKeeperLeaseManager peer = zk.manager(zk.config(namespace));
        assertThat(peer.acquire(new LeaseRequest(List.of("group-1"), "peer", TTL))).as("another manager takes the key after release")
                .hasSize(1);
    }
}
