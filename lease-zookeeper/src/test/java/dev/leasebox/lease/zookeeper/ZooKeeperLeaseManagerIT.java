package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** The whole lease contract against a real ZooKeeper server (curator-test's {@link TestingServer}). */
class ZooKeeperLeaseManagerIT extends LeaseManagerContract {

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

    /** A taker waits out the holder's written deadline plus the skew margin (1 s by default). */
    @Override
    protected Duration takeoverDelay() {
        return Duration.ofSeconds(1);
    }
}
