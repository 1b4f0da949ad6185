package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.WakeUpChannelContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** The wake-up channel contract through watched znodes, against a real ZooKeeper server. */
class ZooKeeperWakeUpChannelIT extends WakeUpChannelContract {

    private static TestingServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperTestServers.startServer();
    }

    @AfterAll
    static void stopServer() {
        ZooKeeperTestServers.closeQuietly(server);
    }

    @Override
    protected LeaseManager newManager() {
        return ZooKeeperLeaseManager.start(ZooKeeperTestServers.config(server.getConnectString(), Duration.ofSeconds(10)).build());
    }
}
