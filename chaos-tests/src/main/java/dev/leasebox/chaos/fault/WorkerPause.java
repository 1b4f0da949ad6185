package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * SIGSTOP of a worker between its decision to write results and the write itself (its history shows
 * the completion sent; every worker's completion path is slowed by 400 ms to make that window
 * observable), held until another worker has claimed one of the frozen worker's entries — longer
 * than its lease — then SIGCONT at once, so the zombie's write reaches the row while the new holder
 * still holds it (the new holder's own write is 400 ms away). The zombie's completions must then be
 * refused by the fence (as {@code Reclaimed}), never accepted.
 */
public final class WorkerPause implements FaultInjector {

    static final Duration WRITE_LATENCY = Duration.ofMillis(400);
    private WorkerProcess paused;

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        return new WorkerProcess.Options(0, null, WRITE_LATENCY, false, null);
    }

    @Override
    public WorkerProcess.Options othersOptions(Path runDir) {
        return new WorkerProcess.Options(0, null, WRITE_LATENCY, false, null);
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        WorkerProcess victim = cluster.victim();
        Duration holdAtMost = cluster.lease().multipliedBy(4).plusSeconds(15);
        for (int pause = 0; pause < 3 && System.nanoTime() < deadline; pause++) {
            long since = System.currentTimeMillis();
            Optional<HistoryEvent> sending = victim.awaitEvent(since, e -> HistoryEvent.COMPLETE_INVOKE.equals(e.kind()),
                    Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (sending.isEmpty() || !victim.process().isAlive()) {
                break;
            }
            paused = victim;
            victim.process().pause();
            Set<Long> held = victim.heldEntries();
            cluster.faults().record(FaultEvent.PAUSE, victim.owner(), "SIGSTOP pid " + victim.process().pid()
                    + " while sending completions, holding " + held.size() + " claims");
            long pausedAt = System.currentTimeMillis();
            boolean reclaimed = Poll.until(() -> cluster.others(paused).stream().anyMatch(w -> w.history().stream()
                            .anyMatch(e -> e.t() > pausedAt && HistoryEvent.CLAIM.equals(e.kind()) && held.contains(e.entry()))),
                    Duration.ofMillis(10), holdAtMost);
            // Logged before the signal: a resumed sender can deliver within the millisecond, and the checker
            // explains a late delivery by a resume logged before its receipt.
            cluster.faults().record(FaultEvent.RESUME, victim.owner(), "SIGCONT after "
                    + (System.currentTimeMillis() - pausedAt) + " ms" + (reclaimed ? ", its claims taken over" : ", not reclaimed"));
            victim.process().resume();
            paused = null;
            Poll.until(() -> false, Duration.ofMillis(100), cluster.lease());
        }
    }

    @Override
    public void heal(ChaosCluster cluster) {
        if (paused != null) {
            paused.process().resume();
        }
    }
}
