package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A service hands the manager the Curator client it already runs; the client and its session stay the service's. */
class ZooKeeperLeaseManagerOnCallersClientIT {

    @RegisterExtension
    static final ZooKeeperServerExtension zk = new ZooKeeperServerExtension();

    @Test
    void closingTheManagerReleasesItsLeasesAndLeavesTheClientRunning() throws Exception {
        CuratorFramework client = zk.plainClient();
        ZooKeeperLeaseManager manager = ZooKeeperLeaseManager.using(client, zk.config("callers").build());
        List<Lease> granted = manager.acquire(new LeaseRequest(List.of("a", "b"), "w1", Duration.ofSeconds(30)));
        assertThat(granted).hasSize(2);
        assertThat(client.checkExists().forPath("/callers/leases/a")).isNotNull();

        manager.close();

        assertThat(client.getZookeeperClient().isConnected()).isTrue();
        assertThat(client.checkExists().forPath("/callers/leases/a")).as("released on close, not left to the session").isNull();
        try (ZooKeeperLeaseManager other = ZooKeeperLeaseManager.using(client, zk.config("callers").build())) {
            assertThat(other.acquire(new LeaseRequest(List.of("a"), "w2", Duration.ofSeconds(30)))).hasSize(1);
        }
    }

    @Test
    void aClientNotYetStartedIsRefusedWithWhatToDo() {
        CuratorFramework notStarted = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100));
        try {
            assertThatThrownBy(() -> ZooKeeperLeaseManager.using(notStarted, zk.config("callers").build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("start it before handing it to the lease manager");
        } finally {
            notStarted.close();
        }
    }
}
