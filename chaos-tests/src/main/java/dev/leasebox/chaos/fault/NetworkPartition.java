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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The victim worker cut off from the coordinator but not from the database: an nftables table drops
 * every TCP packet that the victim's sockets send to the coordinator's client ports (matched by the
 * victim's dedicated group id, {@code meta skgid}; the victim runs with that gid through setpriv),
 * held for three leases (at least 12 s, past a Hazelcast CP session), then removed. Needs root and
 * the {@code nft} command (Debian package {@code nftables}).
 */
public final class NetworkPartition implements FaultInjector {

    static final int VICTIM_GROUP = 4242;
    private String table;

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
        return new WorkerProcess.Options(VICTIM_GROUP, null, Duration.ZERO, false, null);
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
        nft("-f", file.toString());
        cluster.faults().record(FaultEvent.PARTITION, victim.owner(), "nft: drop gid " + VICTIM_GROUP + " -> tcp ports "
                + ports + " (database still reachable)");
        Duration hold = cluster.lease().multipliedBy(3);
        if (hold.compareTo(Duration.ofSeconds(12)) < 0) {
            hold = Duration.ofSeconds(12);
        }
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

    private static void nft(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("nft"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out.trim());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run nft (apt-get install nftables): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running nft", e);
        }
    }
}
