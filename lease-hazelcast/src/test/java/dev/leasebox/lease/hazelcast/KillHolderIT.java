package dev.leasebox.lease.hazelcast;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder JVM (a client, or a non-CP member) is killed with SIGKILL while holding leases: its keys
 * become grantable once its CP session expires, within session TTL + heartbeat + 2 s, and the next
 * grant carries a higher fence.
 */
class KillHolderIT {

    private static final Duration TTL = Duration.ofSeconds(9);
    private static final Duration RELEASE_BOUND = Duration.ofSeconds(
            CpCluster.SESSION_TTL_SECONDS + CpCluster.HEARTBEAT_SECONDS + 2);

    private static CpCluster cluster;
    private static HazelcastLeaseManager survivor;
    private ManagedProcess holder;

    @BeforeAll
    static void startCluster() {
        cluster = CpCluster.startThreeCpMembers();
        survivor = HazelcastLeaseManager.using(cluster.members.get(0), HazelcastLeaseConfig.existingInstance().build());
    }

    @AfterAll
    static void stopCluster() {
        if (survivor != null) {
            survivor.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void stopHolder() {
        if (holder != null) {
            holder.close();
        }
    }

    @Test
    void killedClientsLeasesBecomeGrantableWithinSessionTtlWithHigherFences() {
        List<String> keys = keys("client", 3);
        holder = ManagedProcess.startJava("hazelcast-client-holder", LeaseHolderMain.class, List.of(),
                List.of("client", cluster.clusterName, ports(), String.join(",", keys), Long.toString(TTL.toSeconds())));

        assertKilledHoldersKeysAreRegrantedWithHigherFences(keys);
    }

    @Test
    void killedNonCpMembersLeasesBecomeGrantableWithinSessionTtlWithHigherFences() {
        List<String> keys = keys("member", 3);
        holder = ManagedProcess.startJava("hazelcast-member-holder", LeaseHolderMain.class, List.of(),
                List.of("member", cluster.clusterName, ports(), String.join(",", keys), Long.toString(TTL.toSeconds()),
                        Integer.toString(LoopbackPorts.free())));

        assertKilledHoldersKeysAreRegrantedWithHigherFences(keys);
    }

    private void assertKilledHoldersKeysAreRegrantedWithHigherFences(List<String> keys) {
        Map<String, Long> heldFences = awaitHeld(keys);
        assertThat(survivor.acquire(request(keys))).as("keys held by the live holder JVM").isEmpty();

        holder.kill();
        long killedAt = System.nanoTime();

        AtomicReference<List<Lease>> regranted = new AtomicReference<>(List.of());
        await("keys of the killed holder to become grantable (log " + holder.log() + ")")
                .atMost(RELEASE_BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    List<Lease> granted = survivor.acquire(request(keys));
                    regranted.updateAndGet(previous -> concat(previous, granted));
                    return regranted.get().size() == keys.size();
                });
        System.out.printf("KillHolderIT: %s keys regranted %d ms after SIGKILL%n", holder.log().getFileName(),
                Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
        for (Lease lease : regranted.get()) {
            assertThat(lease.fence()).as("fence of %s after the kill", lease.key()).isGreaterThan(heldFences.get(lease.key()));
        }
        survivor.release(regranted.get());
    }

    private Map<String, Long> awaitHeld(List<String> keys) {
        Map<String, Long> fences = new HashMap<>();
        await("holder JVM to print HELD for every key (log " + holder.log() + ")")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!holder.isAlive()) {
                        throw new IllegalStateException("holder exited; log:\n" + holder.logTail());
                    }
                    fences.clear();
                    for (String line : readLog()) {
                        if (line.startsWith("HELD ")) {
                            String[] parts = line.split(" ");
                            fences.put(parts[1], Long.valueOf(parts[2]));
                        }
                    }
                    return fences.keySet().containsAll(keys);
                });
        return fences;
    }

    private List<String> readLog() {
        try {
            return Files.readAllLines(holder.log());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Lease> concat(List<Lease> a, List<Lease> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    private static LeaseRequest request(List<String> keys) {
        return new LeaseRequest(keys, "survivor", TTL);
    }

    private static List<String> keys(String prefix, int count) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> "kill-" + prefix + "-" + run + "-" + i).toList();
    }

    private static String ports() {
        return cluster.ports.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
