package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table drained first in row mode with retries, then in partition mode. The run's own workers lease rows while
 * every emission fails like a 503, so entries go RETRYABLE with high-water marks raised by their claims; once they
 * have written {@value #RETRIES_BEFORE_SWITCH} retryable completions the fleet is stopped gracefully and replaced by
 * workers with lean partition claims ({@link #SWITCHED_TO}), the provider healthy again. The partition workers must
 * drain every row, a row's high-water mark above their slot fences included, without a stale write, and repeat no
 * more than one batch per worker (the checker's {@code excessEmissionsAfterSwitch}).
 */
public final class RowToPartitionSwitch implements FaultInjector {

    /** Retryable completions the row-mode fleet writes before it is replaced. */
    static final int RETRIES_BEFORE_SWITCH = 60;

    /** What the second fleet leases: lean partition claims, the default of partition leases. */
    public static final Granularity SWITCHED_TO = Granularity.partition(false, "lean");

    /** The second fleet's owners. */
    public static final List<String> SECOND_FLEET = List.of("w3", "w4");

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        if (!FaultInjector.awaitHolding(cluster.victim(), window)) {
            return;
        }
        ProviderFaults.write(cluster.providerControl(), "errorRate=1.0\nslowMillis=1\n");
        cluster.faults().record(FaultEvent.PROVIDER_FAULTS, "provider", "every emission refused like a 503");
        List<WorkerProcess> first = cluster.workers();
        Poll.until(() -> retryables(first) >= RETRIES_BEFORE_SWITCH, Duration.ofMillis(50),
                Duration.ofNanos(Math.max(0, deadline - System.nanoTime()) / 2));
        int retried = retryables(first);
        first.forEach(cluster::retire);
        cluster.faults().record(FaultEvent.FLEET_SWITCH, "fleet", "row-mode workers stopped (SIGTERM) after " + retried
                + " retryable completions; " + SWITCHED_TO.describe() + " workers " + SECOND_FLEET + " start");
        heal(cluster);
        Map<String, WorkerProcess.Options> second = new LinkedHashMap<>();
        SECOND_FLEET.forEach(owner -> second.put(owner, WorkerProcess.Options.plain(null)));
        cluster.startWorkers(second, SWITCHED_TO);
    }

    @Override
    public void heal(ChaosCluster cluster) {
        new ProviderFaults().heal(cluster);
    }

    private static int retryables(List<WorkerProcess> fleet) {
        int n = 0;
        for (WorkerProcess w : fleet) {
            n += (int) w.history().stream().filter(e -> HistoryEvent.COMPLETED.equals(e.kind())
                    && "RETRYABLE_FAILURE".equals(e.detail())).count();
        }
        return n;
    }
}
