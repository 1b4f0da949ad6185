package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The CP session timing of the members (here a 5 s session TTL, 1 s heartbeat) is what frees a killed client's
 * locks: they are grantable again within session TTL + heartbeat + 2 s, earlier than the default 10 s session ever allows.
 *
 * <p>The holder's lease ttl is the longest the session allows (TTL − heartbeat, 4 s) and it renews
 * every third of it, so only a stall of 4 s in the holder JVM could free its keys before the kill;
 * it says so ("LOST key"), and the precondition's message then shows its log.
 */
class SessionTtlFreesLocksIT {

    private static final Duration SESSION_TTL = Duration.ofSeconds(5);
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);
    private static final Duration LEASE_TTL = SESSION_TTL.minus(HEARTBEAT);

    @Test
    void aKilledClientsLocksAreFreedByTheConfiguredSessionTtl() throws Exception {
        try (CpCluster members = CpCluster.start(3, 3, (int) SESSION_TTL.toSeconds())) {
            String clusterName = members.clusterName;
            List<String> addresses = members.addresses();
            String ports = addresses.stream().map(a -> a.substring(a.lastIndexOf(':') + 1)).collect(Collectors.joining(","));
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> keys = IntStream.range(0, 3).mapToObj(i -> "session-" + run + "-" + i).toList();
            try (HazelcastLeaseManager survivor = HazelcastLeaseManager.start(HazelcastLeaseConfig.client(addresses, clusterName)
                    .cpSession(SESSION_TTL, HEARTBEAT).leaseTtl(LEASE_TTL).build());
                 ManagedProcess holder = ManagedProcess.startJava("hazelcast-session-holder", LeaseHolderMain.class, List.of(),
                         List.of("client", clusterName, ports, String.join(",", keys), Long.toString(LEASE_TTL.toSeconds()),
                                 Long.toString(SESSION_TTL.toSeconds()), Long.toString(HEARTBEAT.toSeconds())))) {
                Map<String, Long> heldFences = awaitHeld(holder, keys);
                LeaseRequest request = new LeaseRequest(keys, "survivor", LEASE_TTL);
                assertThat(survivor.acquire(request)).as("keys held by the live holder JVM (its log: %s)", holder.logTail()).isEmpty();

                holder.kill();
                long killedAt = System.nanoTime();
                List<Lease> regranted = new ArrayList<>();
                await("the killed holder's keys to be grantable within session TTL + heartbeat + 2 s (log " + holder.log() + ")")
                        .atMost(SESSION_TTL.plus(HEARTBEAT).plusSeconds(2))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            regranted.addAll(survivor.acquire(request));
                            return regranted.size() == keys.size();
                        });
                System.out.printf("SessionTtlFreesLocksIT: keys regranted %d ms after SIGKILL (session TTL %s)%n",
                        Duration.ofNanos(System.nanoTime() - killedAt).toMillis(), SESSION_TTL);
                for (Lease lease : regranted) {
                    assertThat(lease.fence()).as("fence of %s after the kill", lease.key()).isGreaterThan(heldFences.get(lease.key()));
                }
                survivor.release(regranted);
            }
        }
    }

    private static Map<String, Long> awaitHeld(ManagedProcess holder, List<String> keys) {
        Map<String, Long> fences = new HashMap<>();
        await("holder JVM to print HELD for every key (log " + holder.log() + ")")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!holder.isAlive()) {
                        throw new IllegalStateException("holder exited; log:\n" + holder.logTail());
                    }
                    fences.clear();
                    for (String line : readLines(holder)) {
                        if (line.startsWith("HELD ")) {
                            String[] parts = line.split(" ");
                            fences.put(parts[1], Long.valueOf(parts[2]));
                        }
                    }
                    return fences.keySet().containsAll(keys);
                });
        return fences;
    }

    private static List<String> readLines(ManagedProcess holder) {
        try {
            return Files.readAllLines(holder.log());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
