package dev.leasebox.lease.zookeeper;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.testkit.ManagedProcess;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Real ZooKeeper servers for the tests, each on a free loopback port with a 500 ms tick (so session
 * timeouts from 1 s to 10 s are accepted as requested).
 */
final class ZooKeeperTestServers {

    static final int TICK_MILLIS = 500;

    private ZooKeeperTestServers() {
    }

    static TestingServer startServer() {
        try {
            return new TestingServer(spec(LoopbackPorts.free(), -1, -1, -1), true);
        } catch (Exception e) {
            throw new IllegalStateException("could not start an in-process ZooKeeper TestingServer", e);
        }
    }

    static TestingCluster startCluster(int size) {
        List<InstanceSpec> specs = new ArrayList<>();
        List<Integer> ports = LoopbackPorts.free(3 * size); // all different: a port twice in zoo.cfg is refused
        for (int id = 1; id <= size; id++) {
            int base = 3 * (id - 1);
            specs.add(spec(ports.get(base), ports.get(base + 1), ports.get(base + 2), id));
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            closeQuietly(cluster);
            throw new IllegalStateException("could not start a " + size + "-server ZooKeeper TestingCluster", e);
        }
        return cluster;
    }

    private static InstanceSpec spec(int port, int electionPort, int quorumPort, int serverId) {
        return new InstanceSpec(ManagedProcess.tempDir("zookeeper"), port, electionPort, quorumPort, true, serverId,
                TICK_MILLIS, 0);
    }

    /** A config for {@code connectString} with the given session timeout and a test-sized operation timeout. */
    static ZooKeeperLeaseConfig.Builder config(String connectString, Duration sessionTimeout) {
        return ZooKeeperLeaseConfig.builder(connectString)
                .sessionTimeout(sessionTimeout)
                .connectionTimeout(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(10))
                .namespace("leasebox-test");
    }

    /**
     * Expires {@code zooKeeper}'s session for real, on the server: a second client joins the same
     * session (id and password) and closes it. The ephemeral nodes go at once; the first client is
     * told Expired on its next contact.
     */
    static void expireSession(String connectString, ZooKeeper zooKeeper) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zooKeeper.getSessionId(), zooKeeper.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the twin client could not join session id 0x" + Long.toHexString(zooKeeper.getSessionId()));
            }
        } finally {
            twin.close();
        }
    }

    /** "leader", "follower" or "standalone", from the server's {@code srvr} four-letter command. */
    static String mode(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : reply.split("\n")) {
                if (line.startsWith("Mode: ")) {
                    return line.substring("Mode: ".length()).trim();
                }
            }
            return "unknown";
        } catch (IOException e) {
            return "unreachable";
        }
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            if (e instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw new IllegalStateException(e);
        }
    }
}
