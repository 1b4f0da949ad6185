package dev.leasebox.lease.zookeeper;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.ManagedProcess;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A standalone ZooKeeper server in its own JVM ({@link ZooKeeperServerMain} from the Maven jar),
 * killed with SIGKILL and restarted on the same data directory and port within the session timeout.
 */
class ServerRestartIT {

    /** A 1 s tick lets the server accept the 20 s session timeout requested below. */
    private static final String TICK_MILLIS = "1000";
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void stopEverything() {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            ZooKeeperTestServers.closeQuietly(toClose.get(i));
        }
    }

    private ManagedProcess startServer(int port, File dataDir) {
        ManagedProcess server = ManagedProcess.startJava("zookeeper-" + port, ZooKeeperServerMain.class,
                List.of("-Dzookeeper.admin.enableServer=false"),
                List.of(Integer.toString(port), dataDir.getAbsolutePath(), TICK_MILLIS));
        toClose.add(server);
        return server.awaitListening(port, Duration.ofSeconds(60));
    }

    @Test
    void serverRestartOnTheSameDataDirectoryKeepsEveryLeaseAndItsFence() {
        int port = LoopbackPorts.free();
        File dataDir = ManagedProcess.tempDir("zookeeper-restart");
        ManagedProcess server = startServer(port, dataDir);
        // a server JVM just started may be slow to serve on a loaded machine: the first connection waits longer
        ZooKeeperLeaseManager holder = ZooKeeperLeaseManager.start(
                ZooKeeperTestServers.config("127.0.0.1:" + port, SESSION_TIMEOUT)
                        .connectionTimeout(Duration.ofSeconds(30)).build());
        toClose.add(holder);
        List<String> events = new CopyOnWriteArrayList<>();
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        holder.addLeaseLossListener(new LeaseLossListener() {
            @Override
            public void leasesLost(LeaseLoss loss) {
                losses.add(loss);
            }

            @Override
            public void connectionSuspended(String detail) {
                events.add("suspended");
            }

            @Override
            public void connectionRestored(String detail) {
                events.add("restored");
            }
        });
        List<String> keys = List.of("restart-1", "restart-2", "restart-3", "restart-4", "restart-5");
        List<Lease> held = holder.acquire(new LeaseRequest(keys, "holder", Duration.ofMinutes(5)));
        assertThat(held).hasSize(5);

        server.kill();
        await("the holder to report its leases at risk").atMost(SESSION_TIMEOUT)
                .until(() -> events.contains("suspended"));
        startServer(port, dataDir);

        await("the holder to verify its leases after reconnecting").atMost(SESSION_TIMEOUT)
                .until(() -> events.contains("restored"));
        assertThat(losses).as("leases reported lost").isEmpty();
        assertThat(holder.renew(held)).as("every lease renews with its original fence").hasSize(5)
                .allSatisfy(lease -> assertThat(held).anySatisfy(h -> assertThat(h.sameGrant(lease)).isTrue()));
        ZooKeeperLeaseManager rival = ZooKeeperLeaseManager.start(
                ZooKeeperTestServers.config("127.0.0.1:" + port, SESSION_TIMEOUT).build());
        toClose.add(rival);
        assertThat(rival.acquire(new LeaseRequest(keys, "rival", Duration.ofMinutes(1)))).as("still held").isEmpty();
        List<Lease> fresh = rival.acquire(new LeaseRequest(List.of("restart-new"), "rival", Duration.ofMinutes(1)));
        assertThat(fresh).hasSize(1);
        assertThat(fresh.get(0).fence()).as("fences keep growing after the restart")
                .isGreaterThan(held.stream().mapToLong(Lease::fence).max().orElseThrow());
    }
}
