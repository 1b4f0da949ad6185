package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.HistoryEvent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Steps a lease holder's wall clock back and a taker's forward, both by {@value #STEP_SECONDS} s (two default
 * leases, far beyond the drain's safety margin of a tenth of the lease), then freezes the holder past its lease
 * while it sends completions ({@link WorkerPause}), so that the taker judges the holder's lease with its clock
 * ahead and the holder wakes with its clock behind.
 *
 * <p>Both workers run under libfaketime with their own offset file, {@code +0} from their start; once the
 * holder's history shows it holding claims the harness writes {@code -6} for the holder and {@code +6} for the
 * taker: a wall-clock <em>step</em> of running JVMs, as NTP or an operator makes one. Monotonic time is not
 * faked ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}, {@link WorkerProcess#fakeClockEnvironment}): that is what a
 * wall-clock step leaves alone on a real machine. The step counts only when both histories show it (a line
 * whose {@code local} is at least {@value #OBSERVED_SECONDS} s behind, resp. ahead of the common clock);
 * otherwise, or when libfaketime is missing, the run is a harness error (it fails, never skips).
 *
 * <p>The checker judges the run by real time (the common clock: the database's clock advanced by each JVM's
 * monotonic clock), never by a worker's clock: no takeover while a lease stands ({@code prematureTakeovers}),
 * duplicates only across a lease's end by real time, and fencing as in worker-pause.
 */
public final class ClockStep implements FaultInjector {

    static final int STEP_SECONDS = 6;
    private static final int OBSERVED_SECONDS = STEP_SECONDS - 1;

    private OffsetFile holderClock;
    private OffsetFile takerClock;
    private final WorkerPause pause = new WorkerPause();

    /** One line naming what to install, when libfaketime is missing; empty when it is there. */
    public static String missingLibfaketime() {
        return java.nio.file.Files.exists(WorkerProcess.LIBFAKETIME) ? ""
                : "libfaketime is missing (" + WorkerProcess.LIBFAKETIME + "): apt-get install -y faketime";
    }

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        requireLibfaketime();
        holderClock = new OffsetFile(runDir.resolve("faketime-holder"));
        holderClock.write("+0");
        return new WorkerProcess.Options(0, holderClock.path(), WorkerPause.WRITE_LATENCY, false, null);
    }

    @Override
    public WorkerProcess.Options othersOptions(Path runDir) {
        requireLibfaketime();
        takerClock = new OffsetFile(runDir.resolve("faketime-taker"));
        takerClock.write("+0");
        return new WorkerProcess.Options(0, takerClock.path(), WorkerPause.WRITE_LATENCY, false, null);
    }

    static void requireLibfaketime() {
        String missing = missingLibfaketime();
        if (!missing.isEmpty()) {
            throw new IllegalStateException(missing);
        }
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        WorkerProcess holder = cluster.victim();
        WorkerProcess taker = cluster.others(holder).get(0);
        boolean holding = FaultInjector.awaitHolding(holder, window.dividedBy(2));
        long since = System.currentTimeMillis();
        holderClock.write("-" + STEP_SECONDS);
        takerClock.write("+" + STEP_SECONDS);
        cluster.faults().record(FaultEvent.CLOCK_STEP, holder.owner() + "," + taker.owner(), "wall clocks stepped: holder "
                + holder.owner() + " -" + STEP_SECONDS + " s, taker " + taker.owner() + " +" + STEP_SECONDS
                + " s (libfaketime offset files; monotonic clocks real) " + (holding ? "while the holder holds claims"
                : "though the holder held no claim within " + window.dividedBy(2)));
        observe(cluster, holder, since, -1, window);
        observe(cluster, taker, since, +1, window);
        pause.inject(cluster, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    private static void observe(ChaosCluster cluster, WorkerProcess worker, long since, int sign, Duration window) {
        long observed = OBSERVED_SECONDS * 1000L;
        Optional<HistoryEvent> seen = worker.awaitEvent(since, e -> sign * (e.local() - e.t()) >= observed, window);
        if (seen.isEmpty()) {
            throw new IllegalStateException("clock-step: " + worker.owner() + " (pid " + worker.process().pid() + ", alive "
                    + worker.process().isAlive() + ") wrote no history line with its wall clock " + (sign < 0 ? "behind" : "ahead")
                    + " by " + observed + " ms or more within " + window + ": libfaketime did not apply; see "
                    + worker.process().log());
        }
        HistoryEvent e = seen.get();
        cluster.faults().record("clock-step-observed", worker.owner(), "its " + e.kind() + " line reads local "
                + (e.local() - e.t()) + " ms off the common clock, " + (e.t() - since) + " ms after the step");
    }

    @Override
    public void heal(ChaosCluster cluster) {
        pause.heal(cluster); // the clocks stay stepped until the workers stop, as a stepped machine's would
    }
}
