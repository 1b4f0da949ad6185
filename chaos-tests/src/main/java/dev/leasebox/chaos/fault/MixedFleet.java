package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Granularity;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Workers of another claim style started beside the running fleet while it holds claims: with lean partition
 * claims, and (through an external backend) with lean row claims. Lean claims of another style cannot exclude the
 * fleet's claims, so the table's claim-style registry must refuse each intruder at its start, with one line naming
 * the flags to change, while the fleet drains on. An intruder that is admitted anyway keeps running to the end of
 * the run and is judged by its own style, so the run then shows whether the mix was safe.
 */
public final class MixedFleet implements FaultInjector {

    /** The product's refusal line begins so (ClaimStyleRegistry). */
    static final String REFUSAL = "cannot claim from";

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        if (!FaultInjector.awaitHolding(cluster.victim(), window)) {
            return;
        }
        List<Granularity> intruders = new ArrayList<>();
        if (!cluster.granularity().isLeanPartition()) {
            intruders.add(Granularity.partition(false, "lean"));
        }
        if (cluster.coordinator().isExternal() && !cluster.granularity().isLeanRows()) {
            intruders.add(Granularity.LEAN_ROWS);
        }
        if (cluster.granularity().isLean()) {
            intruders.add(Granularity.ROW);
        }
        int n = 0;
        for (Granularity style : intruders) {
            String owner = "x" + (++n);
            cluster.faults().record(FaultEvent.FLEET_MIX, owner, "started with " + style.describe()
                    + " beside the running fleet (" + cluster.granularity().describe() + ")");
            WorkerProcess intruder = cluster.spawn(owner, WorkerProcess.Options.plain(null), style);
            Poll.until(() -> !intruder.process().isAlive()
                            || intruder.history().stream().anyMatch(e -> HistoryEvent.START.equals(e.kind())),
                    Duration.ofMillis(50), Duration.ofSeconds(60));
            if (intruder.process().isAlive()) {
                cluster.faults().record(FaultEvent.FLEET_MIX_ADMITTED, owner, "admitted: it runs to the end of the run, "
                        + "judged by its own claim style");
                continue;
            }
            String refusal = refusalLine(intruder.process().logTail());
            cluster.retire(intruder);
            if (refusal.isEmpty()) {
                throw new IllegalStateException("worker " + owner + " with " + style.describe() + " exited with "
                        + intruder.process().exitCode() + " without the claim-style refusal; log "
                        + intruder.process().log() + ":\n" + intruder.process().logTail());
            }
            cluster.faults().record(FaultEvent.FLEET_MIX_REFUSED, owner, "refused at start, exit "
                    + intruder.process().exitCode() + ": " + refusal);
        }
        Poll.until(() -> false, Duration.ofMillis(100), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    /** The refusal's line in a worker's log, from its sentence on; empty when there is none. */
    static String refusalLine(String log) {
        for (String line : log.split("\n")) {
            int at = line.indexOf(REFUSAL);
            if (at >= 0) {
                int start = line.lastIndexOf("Worker ", at);
                return line.substring(Math.max(0, start)).strip();
            }
        }
        return "";
    }
}
