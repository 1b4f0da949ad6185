package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.HistoryEvent;

import java.time.Duration;

/** What the PostgreSQL faults share: the workers must recover by themselves, without being restarted. */
final class DatabaseFaults {

    /** How long every worker gets, after a database fault, to finish something again. */
    static final Duration RECOVERY = Duration.ofSeconds(30);

    private DatabaseFaults() {
    }

    /**
     * Waits until every worker (the same JVMs: none is replaced) has completed an entry after {@code sinceMillis}
     * (harness clock), or nothing is left for it to do (no row outstanding: the others drained it); otherwise the
     * run is a harness error naming the worker that did not recover.
     */
    static void awaitRecovered(ChaosCluster cluster, long sinceMillis, String fault) {
        for (WorkerProcess w : cluster.workers()) {
            boolean completed = Poll.until(() -> !w.process().isAlive()
                    || w.history().stream().anyMatch(e -> e.t() >= sinceMillis && HistoryEvent.COMPLETED.equals(e.kind()))
                    || drained(cluster), Duration.ofMillis(50), RECOVERY) && w.process().isAlive();
            if (!w.process().isAlive()) {
                throw new IllegalStateException("worker " + w.owner() + " exited after " + fault + " (it must recover "
                        + "without a restart); log " + w.process().log() + ":\n" + w.process().logTail());
            }
            if (!completed) {
                throw new IllegalStateException("worker " + w.owner() + " completed nothing within " + RECOVERY.toSeconds()
                        + " s after " + fault + " while rows were outstanding: it did not recover; log "
                        + w.process().log());
            }
        }
    }

    private static boolean drained(ChaosCluster cluster) {
        try {
            return cluster.database().outstanding() == 0;
        } catch (RuntimeException databaseNotBackYet) {
            return false;
        }
    }
}
