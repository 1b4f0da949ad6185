package dev.leasebox.cli.embedded;

import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A standalone ZooKeeper server in this JVM on 127.0.0.1, for the demo and local multi-process trials
 * ({@code leasebox zookeeper-server}); never for production. A temporary data directory is deleted
 * on close; a given one is kept — and must never be wiped while workers use it: zxids would restart
 * and fences with them.
 */
final class EmbeddedZooKeeperServer implements EmbeddedCoordinator {

    /** Short ticks so that the demo's sessions (2..20 ticks) can be a few seconds. */
    static final int TICK_MILLIS = 500;

    private final ServerCnxnFactory factory;
    private final ZooKeeperServer server;
    private final Path dataDir;
    private final boolean temporary;

    private EmbeddedZooKeeperServer(ServerCnxnFactory factory, ZooKeeperServer server, Path dataDir, boolean temporary) {
        this.factory = factory;
        this.server = server;
        this.dataDir = dataDir;
        this.temporary = temporary;
    }

    static EmbeddedZooKeeperServer start(int port, Path dataDir, boolean temporary) {
        try {
            Files.createDirectories(dataDir);
            ZooKeeperServer server = new ZooKeeperServer(dataDir.toFile(), dataDir.toFile(), TICK_MILLIS);
            ServerCnxnFactory factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", port), 200);
            factory.startup(server);
            return new EmbeddedZooKeeperServer(factory, server, dataDir, temporary);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a ZooKeeper server on 127.0.0.1:" + port + " with data in "
                    + dataDir + ": " + e.getMessage() + " (is the port taken?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting ZooKeeper on 127.0.0.1:" + port, e);
        }
    }

    /** A session timeout within the server's 2..20 ticks, so the server does not have to change it. */
    @Override
    public java.util.Map<String, String> clientOptions() {
        return java.util.Map.of("session-timeout", "5s");
    }

    @Override
    public String address() {
        return "127.0.0.1:" + factory.getLocalPort();
    }

    @Override
    public void close() {
        factory.shutdown();
        server.shutdown();
        if (temporary) {
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temp directory left behind: harmless
            }
        }
    }
}
