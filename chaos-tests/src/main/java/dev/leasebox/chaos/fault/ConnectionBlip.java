package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The victim's connection to its coordinator interrupted for less than anything the coordinator or the lease counts,
 * again and again while its emissions are in flight (every emission of the run slowed to {@value #SLOW_EMISSION_MILLIS}
 * ms for the window, so a batch is still emitting across each interruption). Two shapes, each matched to the victim's
 * own sockets (its group id, as {@link NetworkPartition} matches them), the database left reachable:
 * <ul>
 *   <li><b>blip</b> ({@link #withinSession}): an nftables rule answers every packet the victim sends to the
 *       coordinator's client ports with a TCP reset, and its open connections there are closed at once
 *       ({@code ss -K} on its own sockets), so its client sees the connection drop (a ZooKeeper client suspends, a
 *       Hazelcast client disconnects, a Redis call fails) and every reconnect is refused; after {@link #BLIP} the rule
 *       is removed and the client reconnects on the same session. No session expires and no lease lapses: the blip
 *       and a reconnect fit well inside both.</li>
 *   <li><b>cut</b> ({@link #pastRenewal}): the rule silently drops those packets, for halfway between a renewal
 *       interval (a third of the lease) and the lease. Nothing is closed: calls wait or time out (the victim runs with
 *       the coordinator's quick timeouts), at least one renewal is missed, and one that waits out the cut can come
 *       after the ttl.</li>
 * </ul>
 * Needs root, the {@code nft} command (Debian package {@code nftables}) and {@code ss} ({@code iproute2}).
 */
public final class ConnectionBlip implements FaultInjector {

    /** How long the blip refuses the victim's connections. */
    static final Duration BLIP = Duration.ofMillis(1500);
    /** What a client may take to reconnect once the blip ends (a ZooKeeper client waits up to 1 s between tries). */
    static final Duration RECONNECT = Duration.ofSeconds(2);
    /** Every emission's latency during the window: a batch of 20 emits for 3 s, across an interruption. */
    static final long SLOW_EMISSION_MILLIS = 150;
    static final int MAX_INTERRUPTIONS = 3;
    /**
     * The least lease these scenarios run with: a blip and a reconnect fit inside it, and it is the longest a Hazelcast
     * CP session of 6 s with a 1 s heartbeat allows.
     */
    public static final Duration LEAST_LEASE = Duration.ofSeconds(5);

    private static final Pattern SOCKET = Pattern.compile("\\S+:(\\d+)\\s+\\S+:(\\d+)\\s+users:.*?pid=(\\d+),");

    private final boolean blip;
    private String table;
    private boolean slowed;

    private ConnectionBlip(boolean blip) {
        this.blip = blip;
    }

    /** The {@code connection-blip} scenario's fault: connections closed and refused for {@link #BLIP}. */
    public static ConnectionBlip withinSession() {
        return new ConnectionBlip(true);
    }

    /** The {@code renewal-cut} scenario's fault: packets dropped past a renewal interval, within the lease. */
    public static ConnectionBlip pastRenewal() {
        return new ConnectionBlip(false);
    }

    /**
     * How long one interruption holds: {@link #BLIP}, or halfway between a renewal interval ({@code lease / 3}) and
     * {@code lease}. Refused, naming {@code --lease}, when the interruption (and, for a blip, a reconnect) does not fit
     * inside the lease and the coordinator's session.
     */
    static Duration hold(boolean blip, Duration lease, Optional<Duration> session, String backend) {
        Duration hold = blip ? BLIP : lease.dividedBy(3).plus(lease).dividedBy(2).truncatedTo(ChronoUnit.MILLIS);
        Duration reach = blip ? BLIP.plus(RECONNECT) : hold;
        if (reach.compareTo(lease) >= 0) {
            throw new IllegalStateException((blip ? "connection-blip" : "renewal-cut") + " interrupts the connection for "
                    + hold.toMillis() + " ms" + (blip ? " plus up to " + RECONNECT.toMillis() + " ms to reconnect" : "")
                    + ", which must end within the lease: use a --lease above " + reach.toMillis() + "ms");
        }
        if (session.isPresent() && reach.compareTo(session.get()) >= 0) {
            throw new IllegalStateException("the interruption of " + reach.toMillis() + " ms does not fit inside "
                    + backend + "'s session of " + session.get().toMillis() + " ms");
        }
        return hold;
    }

    /** Why this fault cannot run here, or empty when it can. */
    public static String unavailableReason() {
        String nft = NetworkPartition.unavailableReason();
        if (!nft.isEmpty()) {
            return nft;
        }
        try {
            Process p = new ProcessBuilder("ss", "-V").redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "ss -V failed";
            }
        } catch (IOException e) {
            return "the ss command is missing: apt-get install -y iproute2";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return "";
    }

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        String missing = unavailableReason();
        if (!missing.isEmpty()) {
            // never skipped: the run fails with what to install
            throw new IllegalStateException("the connection fault cannot be injected here: " + missing);
        }
        return new WorkerProcess.Options(NetworkPartition.VICTIM_GROUP, null, Duration.ZERO, false, null, !blip);
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        WorkerProcess victim = cluster.victim();
        Duration hold = hold(blip, cluster.lease(), cluster.coordinator().session(), cluster.coordinator().backend());
        // a renewal interval between interruptions: the victim renews and claims again (under the grant it kept)
        Duration between = cluster.lease().dividedBy(3);
        ProviderFaults.write(cluster.providerControl(), "slowMillis=" + SLOW_EMISSION_MILLIS + "\n");
        slowed = true;
        cluster.faults().record(FaultEvent.PROVIDER_SLOW, "provider", "every emission takes " + SLOW_EMISSION_MILLIS
                + " ms (no errors): batches stay in flight across each interruption");
        for (int i = 0; i < MAX_INTERRUPTIONS && System.nanoTime() + hold.toNanos() < deadline; i++) {
            if (!FaultInjector.awaitHolding(victim, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                break;
            }
            interrupt(cluster, victim, hold);
            Poll.until(() -> false, Duration.ofMillis(100),
                    Duration.ofNanos(Math.max(0, Math.min(between.toNanos(), deadline - System.nanoTime()))));
        }
        heal(cluster);
    }

    private void interrupt(ChaosCluster cluster, WorkerProcess victim, Duration hold) {
        List<Integer> ports = cluster.coordinator().clientPorts();
        table = "leasebox_chaos_" + ProcessHandle.current().pid();
        String action = blip ? "reject with tcp reset" : "drop";
        String rules = "table inet " + table + " {\n  chain output {\n    type filter hook output priority 0; policy accept;\n"
                + "    meta skgid " + NetworkPartition.VICTIM_GROUP + " tcp dport { "
                + ports.stream().map(String::valueOf).collect(Collectors.joining(", ")) + " } " + action + "\n  }\n}\n";
        Path file = cluster.runDir().resolve(blip ? "blip.nft" : "cut.nft");
        try {
            Files.writeString(file, rules);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
        int held = victim.heldEntries().size();
        NetworkPartition.nft("-f", file.toString());
        if (blip) {
            int closed = closeConnections(victim.process().pid(), ports);
            cluster.faults().record(FaultEvent.CONNECTION_BLIP, victim.owner(), "nft: reset gid " + NetworkPartition.VICTIM_GROUP
                    + " -> tcp ports " + ports + ", " + closed + " open connections closed (ss -K), for " + hold.toMillis()
                    + " ms while holding " + held + " claims (database still reachable)");
        } else {
            cluster.faults().record(FaultEvent.CONNECTION_CUT, victim.owner(), "nft: drop gid " + NetworkPartition.VICTIM_GROUP
                    + " -> tcp ports " + ports + " for " + hold.toMillis() + " ms (renewal interval "
                    + cluster.lease().dividedBy(3).toMillis() + " ms, lease " + cluster.lease().toMillis()
                    + " ms) while holding " + held + " claims (database still reachable)");
        }
        Poll.until(() -> false, Duration.ofMillis(50), hold);
        removeRule(cluster);
    }

    /** Closes {@code pid}'s established connections to {@code ports} (its side only); how many it closed. */
    static int closeConnections(long pid, List<Integer> ports) {
        List<String> pairs = new ArrayList<>();
        for (String line : run("ss", "-tnpH", "state", "established").lines().toList()) {
            Matcher m = SOCKET.matcher(line);
            if (m.find() && Long.parseLong(m.group(3)) == pid && ports.contains(Integer.parseInt(m.group(2)))) {
                pairs.add("( sport = :" + m.group(1) + " and dport = :" + m.group(2) + " )");
            }
        }
        if (!pairs.isEmpty()) {
            run("ss", "-K", "-tnH", "state", "established", String.join(" or ", pairs));
        }
        return pairs.size();
    }

    private static String run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out.trim());
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command[0] + " (apt-get install iproute2): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command[0], e);
        }
    }

    private void removeRule(ChaosCluster cluster) {
        if (table == null) {
            return;
        }
        String removing = table;
        table = null;
        NetworkPartition.nft("delete", "table", "inet", removing);
        cluster.faults().record(FaultEvent.HEAL, cluster.victim().owner(), "nft: table " + removing + " deleted");
    }

    @Override
    public void heal(ChaosCluster cluster) {
        removeRule(cluster);
        if (slowed) {
            slowed = false;
            ProviderFaults.write(cluster.providerControl(), "slowMillis=0\n");
            cluster.faults().record(FaultEvent.PROVIDER_HEALTHY, "provider", "emissions at full speed");
        }
    }
}
