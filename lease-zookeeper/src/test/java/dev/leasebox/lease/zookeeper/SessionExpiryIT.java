package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A real session expiry on the server: every lease is reported lost and becomes grantable with a higher fence. */
class SessionExpiryIT {

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration LONG_TTL = Duration.ofMinutes(5);

    private TestingServer server;
    private final List<ZooKeeperLeaseManager> managers = new ArrayList<>();

    @BeforeEach
    void startServer() {
        server = ZooKeeperTestServers.startServer();
    }

    @AfterEach
    void stopEverything() {
        managers.forEach(ZooKeeperLeaseManager::close);
        ZooKeeperTestServers.closeQuietly(server);
    }

    private ZooKeeperLeaseManager manager() {
        ZooKeeperLeaseManager manager = ZooKeeperLeaseManager.start(
                ZooKeeperTestServers.config(server.getConnectString(), SESSION_TIMEOUT).build());
        managers.add(manager);
        return manager;
    }

    @Test
    void sessionExpiryReportsEveryLeaseLostAndAnotherClientGetsThemWithHigherFences() throws Exception {
        ZooKeeperLeaseManager holder = manager();
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        holder.addLeaseLossListener(losses::add);
        List<String> keys = List.of("expiry-1", "expiry-2", "expiry-3", "expiry/4", "expiry-5");
        List<Lease> held = holder.acquire(new LeaseRequest(keys, "holder", LONG_TTL));
        assertThat(held).hasSize(5);

        ZooKeeperTestServers.expireSession(server.getConnectString(), holder.curator().getZookeeperClient().getZooKeeper());

        await("the holder to report every lease lost by session expiry").atMost(SESSION_TIMEOUT.plusSeconds(10))
                .untilAsserted(() -> assertThat(losses)
                        .filteredOn(loss -> loss.cause() == LeaseLoss.Cause.SESSION_EXPIRED)
                        .flatExtracting(LeaseLoss::leases)
                        .extracting(Lease::key).containsExactlyInAnyOrderElementsOf(keys));
        assertThat(holder.heldCount()).isZero();

        List<Lease> regranted = manager().acquire(new LeaseRequest(keys, "successor", LONG_TTL));
        Map<String, Long> oldFences = held.stream().collect(Collectors.toMap(Lease::key, Lease::fence));
        assertThat(regranted).extracting(Lease::key).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(regranted).allSatisfy(lease -> assertThat(lease.fence()).isGreaterThan(oldFences.get(lease.key())));
        assertThat(holder.renew(held)).as("the expired holder renews nothing").isEmpty();
    }

    @Test
    void sessionExpiryThenTheSameManagerGrantsAgainOnItsNewSession() throws Exception {
        ZooKeeperLeaseManager holder = manager();
        List<String> restored = new CopyOnWriteArrayList<>();
        holder.addLeaseLossListener(new dev.leasebox.lease.LeaseLossListener() {
            @Override
            public void leasesLost(LeaseLoss loss) {
            }

            @Override
            public void connectionRestored(String detail) {
                restored.add(detail);
            }
        });
        Lease before = holder.acquire(new LeaseRequest(List.of("again"), "holder", LONG_TTL)).get(0);
        long oldSession = holder.curator().getZookeeperClient().getZooKeeper().getSessionId();

        ZooKeeperTestServers.expireSession(server.getConnectString(), holder.curator().getZookeeperClient().getZooKeeper());

        await("a new session").atMost(SESSION_TIMEOUT.plusSeconds(15)).ignoreExceptions()
                .until(() -> holder.curator().getZookeeperClient().isConnected()
                        && holder.curator().getZookeeperClient().getZooKeeper().getSessionId() != oldSession);
        List<Lease> after = await("a grant on the new session").atMost(Duration.ofSeconds(15)).ignoreExceptions()
                .until(() -> holder.acquire(new LeaseRequest(List.of("again"), "holder", LONG_TTL)), list -> !list.isEmpty());
        assertThat(after.get(0).fence()).isGreaterThan(before.fence());
        assertThat(holder.renew(after)).extracting(Function.identity()).hasSize(1);
    }
}
