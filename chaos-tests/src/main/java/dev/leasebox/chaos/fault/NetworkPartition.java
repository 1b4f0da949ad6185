package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The victim worker cut off from the coordinator but not from the database: an nftables table drops
 * every TCP packet that the victim's sockets send to the coordinator's client ports (matched by the
 * victim's dedicated group id, {@code meta skgid}; the victim runs with that gid through setpriv),
 * then removed. {@link #pastSession} holds it for three leases and at least 12 s (past a Hazelcast CP
 * session); {@link #withinSession} holds it halfway between the lease and the coordinator's session,
 * so the coordinator still counts the victim alive when the cut heals while its own leases have
 * lapsed. Needs root and the {@code nft} command (Debian package {@code nftables}).
 */
public final class NetworkPartition implements FaultInjector {

    static final int VICTIM_GROUP = 4242;
    private final boolean withinSession;
    private String table;

    private NetworkPartition(boolean withinSession) {
        this.withinSession = withinSession;
    }

    /** The {@code partition} scenario's cut: three leases, at least 12 s. */
    public static NetworkPartition pastSession() {
        return new NetworkPartition(false);
    }

    /** The {@code short-partition} scenario's cut: longer than the lease, shorter than the coordinator's session. */
    public static NetworkPartition withinSession() {
        return new NetworkPartition(true);
    }

    /**
     * How long the cut holds: for {@link #withinSession}, halfway between {@code lease} and {@code session}
     * (refused, naming {@code --lease}, when the lease is not shorter than the session).
     */
    static Duration hold(boolean withinSession, Duration lease, Optional<Duration> session, String backend) {
        if (!withinSession) {
            Duration hold = lease.multipliedBy(3);
            return hold.compareTo(Duration.ofSeconds(12)) < 0 ? Duration.ofSeconds(12) : hold;
        }
        Duration s = session.orElseThrow(() -> new IllegalStateException(
                "short-partition needs a coordinator with sessions (zookeeper or hazelcast), not " + backend));
        if (lease.compareTo(s) >= 0) {
            throw new IllegalStateException("short-partition cuts the worker off for longer than its lease but shorter than "
                    + backend + "'s session of " + s.toSeconds() + " s: use a --lease below " + s.toSeconds() + "s");
        }
        return lease.plus(s).dividedBy(2);
    }

    /** Why this fault cannot run here, or empty when it can. */
    public static String unavailableReason() {
        try {
            Process p = new ProcessBuilder("nft", "--version").redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "nft --version failed";
            }
        } catch (IOException e) {
            return "the nft command is missing: apt-get install -y nftables";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "nftables rules need root, running as " + System.getProperty("user.name") + ": run the chaos suite as root";
        }
        return "";
    }

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        String missing = unavailableReason();
        if (!missing.isEmpty()) {
            // never skipped: the run fails with what to install
            throw new IllegalStateException("the partition fault cannot be injected here: " + missing);
        }
        return new WorkerProcess.Options(VICTIM_GROUP, null, Duration.ZERO, false, null, withinSession);
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        List<Integer> ports = cluster.coordinator().clientPorts();
        table = "leasebox_chaos_" + ProcessHandle.current().pid();
        String rules = "table inet " + table + " {\n  chain output {\n    type filter hook output priority 0; policy accept;\n"
                + "    meta skgid " + VICTIM_GROUP + " tcp dport { "
                + ports.stream().map(String::valueOf).collect(Collectors.joining(", ")) + " } drop\n  }\n}\n";
        Path file = cluster.runDir().resolve("partition.nft");
        try {
            Files.writeString(file, rules);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
        Duration hold = hold(withinSession, cluster.lease(), cluster.coordinator().session(), cluster.coordinator().backend());
        nft("-f", file.toString());
        cluster.faults().record(FaultEvent.PARTITION, victim.owner(), "nft: drop gid " + VICTIM_GROUP + " -> tcp ports "
                + ports + " for " + hold.toMillis() + " ms (database still reachable)");
        Poll.until(() -> false, Duration.ofMillis(100), hold);
        heal(cluster);
    }

    @Override
    public void heal(ChaosCluster cluster) {
        if (table == null) {
            return;
        }
        String removing = table;
        table = null;
        nft("delete", "table", "inet", removing);
        cluster.faults().record(FaultEvent.HEAL, cluster.victim().owner(), "nft: table " + removing + " deleted");
    }

    /** Runs {@code nft} with {@code args}; its output, or an IllegalStateException naming the command. */
    static String nft(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("nft"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out.trim());
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run nft (apt-get install nftables): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running nft", e);
        }
    }
}
