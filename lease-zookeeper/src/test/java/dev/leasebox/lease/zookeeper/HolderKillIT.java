package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.ManagedProcess;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A lease-holding JVM killed with SIGKILL: its leases become grantable within the session timeout. */
class HolderKillIT {

    private static final Duration HOLDER_SESSION_TIMEOUT = Duration.ofSeconds(3);

    private TestingServer server;
    private ManagedProcess holder;
    private ZooKeeperLeaseManager successor;

    @BeforeEach
    void startServer() {
        server = ZooKeeperTestServers.startServer();
    }

    @AfterEach
    void stopEverything() {
        ZooKeeperTestServers.closeQuietly(holder);
        ZooKeeperTestServers.closeQuietly(successor);
        ZooKeeperTestServers.closeQuietly(server);
    }

    @Test
    void holderKillMakesItsLeasesGrantableWithinSessionTimeoutPlusTwoSecondsWithHigherFences() {
        List<String> keys = List.of("kill-1", "kill-2", "kill-3");
        List<String> args = new ArrayList<>(List.of(server.getConnectString(), Long.toString(HOLDER_SESSION_TIMEOUT.toMillis()),
                Long.toString(Duration.ofMinutes(10).toMillis())));
        args.addAll(keys);
        holder = ManagedProcess.startJava("lease-holder", LeaseHoldingWorker.class, List.of(), args);
        Map<String, Long> heldFences = await("the holder JVM to print HELD for every key").atMost(Duration.ofSeconds(60))
                .until(() -> heldFences(holder), fences -> fences.keySet().containsAll(keys));
        successor = ZooKeeperLeaseManager.start(ZooKeeperTestServers.config(server.getConnectString(), Duration.ofSeconds(10)).build());
        assertThat(successor.acquire(new LeaseRequest(keys, "successor", Duration.ofMinutes(1))))
                .as("held by the live holder").isEmpty();

        holder.kill();

        List<Lease> regranted = await("the killed holder's leases to become grantable")
                .atMost(HOLDER_SESSION_TIMEOUT.plusSeconds(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> successor.acquire(new LeaseRequest(keys, "successor", Duration.ofMinutes(1))), list -> !list.isEmpty());
        List<Lease> all = new ArrayList<>(regranted);
        if (all.size() < keys.size()) {
            all.addAll(successor.acquire(new LeaseRequest(keys, "successor", Duration.ofMinutes(1))));
        }
        assertThat(all).extracting(Lease::key).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(all).allSatisfy(lease -> assertThat(lease.fence()).isGreaterThan(heldFences.get(lease.key())));
    }

    @Test
    void aKilledHoldersLeasesAreTakenOverAtTheirTtlLongBeforeItsSessionExpires() {
        Duration sessionTimeout = Duration.ofSeconds(30);
        Duration leaseTtl = Duration.ofSeconds(2);
        List<String> keys = List.of("ttl-1", "ttl-2", "ttl-3");
        List<String> args = new ArrayList<>(List.of(server.getConnectString(), Long.toString(sessionTimeout.toMillis()),
                Long.toString(leaseTtl.toMillis())));
        args.addAll(keys);
        holder = ManagedProcess.startJava("lease-holder-ttl", LeaseHoldingWorker.class, List.of(), args);
        Map<String, Long> heldFences = await("the holder JVM to print HELD for every key").atMost(Duration.ofSeconds(60))
                .until(() -> heldFences(holder), fences -> fences.keySet().containsAll(keys));
        successor = ZooKeeperLeaseManager.start(ZooKeeperTestServers.config(server.getConnectString(), Duration.ofSeconds(10)).build());

        holder.kill();
        long killedAt = System.nanoTime();

        // the dead session lives on for 30 s; its nodes' deadlines (granted + 2 s) pass well before
        List<Lease> all = new ArrayList<>();
        await("the killed holder's leases to be taken over once their ttl passed, while its session still lives")
                .atMost(leaseTtl.plusSeconds(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    all.addAll(successor.acquire(new LeaseRequest(keys, "successor", Duration.ofMinutes(1))));
                    return all.size() == keys.size();
                });
        System.out.printf("HolderKillIT: leases of a killed holder with a 30 s session taken over %d ms after SIGKILL (lease ttl %s)%n",
                Duration.ofNanos(System.nanoTime() - killedAt).toMillis(), leaseTtl);
        assertThat(all).extracting(Lease::key).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(all).allSatisfy(lease -> assertThat(lease.fence()).isGreaterThan(heldFences.get(lease.key())));
    }

    private static Map<String, Long> heldFences(ManagedProcess process) throws Exception {
        if (!process.isAlive()) {
            throw new IllegalStateException("the lease-holding JVM exited; log:\n" + process.logTail());
        }
        Map<String, Long> fences = new HashMap<>();
        for (String line : Files.readAllLines(process.log())) {
            if (line.startsWith("HELD ")) {
                String[] parts = line.split(" ", 3);
                fences.put(parts[2], Long.parseLong(parts[1]));
            }
        }
        return fences;
    }
}
