package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A three-server ensemble losing a follower, then its leader. */
class EnsembleFailoverIT {

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LONG_TTL = Duration.ofMinutes(5);

    private TestingCluster cluster;
    private final List<ZooKeeperLeaseManager> managers = new ArrayList<>();

    @BeforeEach
    void startEnsemble() {
        cluster = ZooKeeperTestServers.startCluster(3);
    }

    @AfterEach
    void stopEverything() {
        managers.forEach(ZooKeeperLeaseManager::close);
        ZooKeeperTestServers.closeQuietly(cluster);
    }

    private ZooKeeperLeaseManager manager() {
        ZooKeeperLeaseManager manager = ZooKeeperLeaseManager.start(
                ZooKeeperTestServers.config(cluster.getConnectString(), SESSION_TIMEOUT).build());
        managers.add(manager);
        return manager;
    }

    private InstanceSpec serverIn(String mode) {
        return await("a " + mode + " in the ensemble").atMost(Duration.ofSeconds(30))
                .until(() -> cluster.getInstances().stream()
                        .filter(spec -> ZooKeeperTestServers.mode(spec.getPort()).equals(mode)).findFirst(),
                        java.util.Optional::isPresent).get();
    }

    private static List<String> keys(String prefix, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(prefix + "-" + i);
        }
        return keys;
    }

    private static long maxFence(List<Lease> leases) {
        return leases.stream().mapToLong(Lease::fence).max().orElseThrow();
    }

    @Test
    void ensembleKeepsLeasesAndKeepsGrantingWhenAFollowerIsKilled() throws Exception {
        ZooKeeperLeaseManager holder = manager();
        List<Lease> held = holder.acquire(new LeaseRequest(keys("follower-held", 10), "holder", LONG_TTL));
        assertThat(held).hasSize(10);

        assertThat(cluster.killServer(serverIn("follower"))).isTrue();

        List<Lease> renewed = await("the held leases to renew after the follower died").atMost(SESSION_TIMEOUT.plusSeconds(10))
                .ignoreExceptions().until(() -> holder.renew(held), list -> list.size() == 10);
        assertThat(renewed).allSatisfy(lease -> assertThat(held).anySatisfy(h -> assertThat(h.sameGrant(lease)).isTrue()));
        List<Lease> fresh = await("new grants").atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> holder.acquire(new LeaseRequest(keys("follower-new", 10), "holder", LONG_TTL)), list -> list.size() == 10);
        assertThat(fresh).allSatisfy(lease -> assertThat(lease.fence()).isGreaterThan(maxFence(held)));
        assertThat(manager().acquire(new LeaseRequest(keys("follower-held", 10), "rival", LONG_TTL)))
                .as("the surviving leases still exclude others").isEmpty();
    }

    @Test
    void ensembleResumesGrantsAfterTheLeaderIsKilledWithGreaterFencesFromANewEpoch() throws Exception {
        ZooKeeperLeaseManager holder = manager();
        List<Lease> before = holder.acquire(new LeaseRequest(keys("leader-before", 10), "holder", LONG_TTL));
        assertThat(before).hasSize(10);
        long epochBefore = Fences.czxidOf(maxFence(before)) >>> 32;

        assertThat(cluster.killServer(serverIn("leader"))).isTrue();

        List<Lease> after = await("grants to resume under a new leader").atMost(SESSION_TIMEOUT.plusSeconds(30))
                .ignoreExceptions()
                .until(() -> holder.acquire(new LeaseRequest(keys("leader-after", 10), "holder", LONG_TTL)), list -> list.size() == 10);
        assertThat(after).allSatisfy(lease -> assertThat(lease.fence()).isGreaterThan(maxFence(before)));
        assertThat(Fences.czxidOf(after.get(0).fence()) >>> 32).as("leader epoch of the new grants").isGreaterThan(epochBefore);
    }
}
