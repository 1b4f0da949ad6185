package dev.leasebox.lease.zookeeper;

import dev.leasebox.jdbc.MariaDbWakeUpScenarios;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link MariaDbWakeUpScenarios} through a watched ZooKeeper node: each process its own manager, so its own
 * ZooKeeper session, on the same server.
 */
class MariaDbWakeUpsThroughZooKeeperIT extends MariaDbWakeUpScenarios<ZooKeeperLeaseManager> {

    @RegisterExtension
    static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

    @Override
    protected ZooKeeperLeaseManager manager(String namespace, int process) {
        return ZooKeeperLeaseManager.start(ZOOKEEPER.config(namespace).build());
    }
}
