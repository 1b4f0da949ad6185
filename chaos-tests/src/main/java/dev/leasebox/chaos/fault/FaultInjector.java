package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.WorkerProcess;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One kind of fault, injected from outside the workers. {@link #inject} runs the fault's schedule
 * within {@code window}, timing itself from what the workers' histories show (not from blind
 * sleeps), and records every step in the cluster's fault log; {@link #heal} undoes whatever is still
 * in force (resumes, removes rules) and runs even when the run fails.
 */
public interface FaultInjector {

    /** How the victim (the first worker) must be started for this fault. */
    default WorkerProcess.Options victimOptions(Path runDir) {
        return WorkerProcess.Options.plain(null);
    }

    /** How the other workers must be started for this fault. */
    default WorkerProcess.Options othersOptions(Path runDir) {
        return WorkerProcess.Options.plain(null);
    }

    /** Workers beyond the first two (named w3, w4, …), for faults that need a third party; none by default. */
    default java.util.List<WorkerProcess.Options> bystanderOptions(Path runDir) {
        return java.util.List.of();
    }

    void inject(ChaosCluster cluster, Duration window);

    default void heal(ChaosCluster cluster) {
    }

    /** Waits until {@code worker}'s history shows it holding claims; true if it does. */
    static boolean awaitHolding(WorkerProcess worker, Duration timeout) {
        return dev.leasebox.chaos.harness.Poll.until(() -> !worker.process().isAlive() || !worker.heldEntries().isEmpty(),
                Duration.ofMillis(20), timeout) && worker.process().isAlive();
    }
}
