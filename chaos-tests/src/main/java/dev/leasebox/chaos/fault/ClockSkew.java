package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Steps the running victim worker's wall clock {@value #OFFSET_SECONDS} s (two default leases) ahead
 * of every other clock, as an NTP step would, and leaves it there until the worker stops. The victim
 * runs with libfaketime LD_PRELOADed, reading its offset from a file in the run directory
 * ({@link WorkerProcess#fakeClockEnvironment}): {@code +0} from its start, {@code +6} written once its
 * history shows it holding claims (after half the window at the latest), so the step lands on claims in
 * flight. Only the wall clock moves
 * (the one the worker's {@code Clock} gives "now", claimedAt and expiry from); its monotonic clock
 * stays real. The injection counts only when the victim's own history shows its wall clock ahead of
 * the common clock by the offset; otherwise the run is a harness error.
 *
 * <p>A clock ahead makes the victim count its own claims lost early and, where a claim's expiry is
 * judged by the claimer's clock (the database backend's row expiry, a ZooKeeper lease's deadline), judge
 * other workers' claims expired early and take them over: duplicates follow, but fencing must
 * refuse every stale completion, fences must only grow and nothing may be lost. Needs the Debian
 * package {@code faketime}.
 */
public final class ClockSkew implements FaultInjector {

    static final int OFFSET_SECONDS = 6;
    /** How far ahead of the common clock the victim's history must show its wall clock for the step to count. */
    private static final long OBSERVED_MILLIS = (OFFSET_SECONDS - 1) * 1000L;

    private Path clockFile;

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        ClockStep.requireLibfaketime(); // missing: the run fails with what to install, it is not skipped
        clockFile = runDir.resolve("faketime-offset");
        write("+0");
        return new WorkerProcess.Options(0, clockFile, Duration.ZERO, false, null);
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        WorkerProcess victim = cluster.victim();
        boolean holding = FaultInjector.awaitHolding(victim, window.dividedBy(2));
        long sinceMillis = System.currentTimeMillis();
        write("+" + OFFSET_SECONDS);
        cluster.faults().record(FaultEvent.CLOCK_SKEW, victim.owner(), "wall clock stepped +" + OFFSET_SECONDS
                + " s (libfaketime offset file " + clockFile.getFileName() + " in pid " + victim.process().pid() + ") "
                + (holding ? "while it holds claims" : "though it held no claim within " + window.dividedBy(2)));
        Optional<HistoryEvent> skewed = victim.awaitEvent(sinceMillis, e -> e.local() - e.t() >= OBSERVED_MILLIS, window);
        if (skewed.isEmpty()) {
            throw new IllegalStateException("the clock-skew victim " + victim.owner() + " (pid " + victim.process().pid()
                    + ", alive " + victim.process().isAlive() + ") wrote no history line with its wall clock "
                    + OBSERVED_MILLIS + " ms or more ahead within " + window + " of the step: libfaketime did not apply "
                    + clockFile + "; check " + WorkerProcess.LIBFAKETIME + " and the log " + victim.process().log());
        }
        HistoryEvent e = skewed.get();
        cluster.faults().record("clock-skew-observed", victim.owner(), "its " + e.kind() + " line reads local "
                + (e.local() - e.t()) + " ms ahead of the common clock, " + (e.t() - sinceMillis) + " ms after the step");
        Poll.until(() -> false, Duration.ofMillis(100), window.dividedBy(2));
    }

    private void write(String offset) {
        new OffsetFile(clockFile).write(offset);
    }
}
