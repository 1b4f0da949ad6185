package dev.leasebox.lease.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One real ZooKeeper server for a test class (register as a static {@code @RegisterExtension}), and the
 * managers and plain clients a test opens through it, closed after each test.
 */
final class ZooKeeperServerExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {

    private TestingServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        server = ZooKeeperTestServers.startServer();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ZooKeeperTestServers.closeQuietly(server);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        synchronized (toClose) {
            toClose.forEach(ZooKeeperTestServers::closeQuietly);
            toClose.clear();
        }
    }

    String connectString() {
        return server.getConnectString();
    }

    /** The test servers' usual configuration, in {@code namespace}. */
    ZooKeeperLeaseConfig.Builder config(String namespace) {
        return ZooKeeperTestServers.config(connectString(), Duration.ofSeconds(10)).namespace(namespace);
    }

    /** A manager started from {@code config}, closed after the test. */
    ZooKeeperLeaseManager manager(ZooKeeperLeaseConfig.Builder config) {
        return closeAfterTest(ZooKeeperLeaseManager.start(config.build()));
    }

    /** A plain Curator client of the server, started, closed after the test. */
    CuratorFramework plainClient() {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString(), new RetryOneTime(100));
        client.start();
        return closeAfterTest(client);
    }

    <T extends AutoCloseable> T closeAfterTest(T closeable) {
        synchronized (toClose) {
            toClose.add(closeable);
        }
        return closeable;
    }
}
