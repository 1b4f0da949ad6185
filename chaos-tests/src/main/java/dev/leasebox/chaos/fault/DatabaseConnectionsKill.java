package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.time.Duration;

/**
 * Every connection of the run's workers terminated with {@code pg_terminate_backend} while the victim is in
 * the middle of a batch (its history shows a new claim it still holds), up to three times in the window; after
 * each, every worker must complete entries again by itself (its pool reconnects), none is restarted.
 */
public final class DatabaseConnectionsKill implements FaultInjector {

    static final int ROUNDS = 3;

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long started = System.nanoTime();
        long deadline = started + window.toNanos();
        long since = 0;
        for (int round = 0; round < ROUNDS && System.nanoTime() < deadline; round++) {
            // spread the rounds over the window: round n not before n/ROUNDS of it
            long notBefore = started + window.toNanos() * round / ROUNDS;
            Poll.until(() -> System.nanoTime() >= notBefore, Duration.ofMillis(50), window);
            WorkerProcess victim = cluster.victim();
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (victim.awaitEvent(since, e -> HistoryEvent.CLAIM.equals(e.kind()), left).isEmpty()
                    || !FaultInjector.awaitHolding(victim, left)) {
                break;
            }
            int held = victim.heldEntries().size();
            since = System.currentTimeMillis();
            int terminated = cluster.database().terminateWorkerConnections();
            cluster.faults().record(FaultEvent.DB_CONNECTIONS_KILLED, "postgresql", "pg_terminate_backend on "
                    + terminated + " worker connections while " + victim.owner() + " held " + held + " claims");
            DatabaseFaults.awaitRecovered(cluster, since, "its connections were terminated");
        }
    }
}
