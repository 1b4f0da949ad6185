package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The victim worker's wall clock runs {@value #OFFSET_SECONDS} s ahead (two default leases) of every
 * other clock, through libfaketime LD_PRELOADed into its JVM (monotonic time left real). A clock
 * ahead makes the victim count its own claims lost early and, on the database backend, judge other
 * workers' claims expired early and take them over: duplicates follow, but fencing must refuse every
 * stale completion, fences must only grow and nothing may be lost. Needs the Debian package
 * {@code faketime}.
 */
public final class ClockSkew implements FaultInjector {

    static final int OFFSET_SECONDS = 6;

    /** Why this fault cannot run here, or empty when it can. */
    public static String unavailableReason() {
        return Files.exists(WorkerProcess.LIBFAKETIME) ? "" : WorkerProcess.LIBFAKETIME + " is missing (apt-get install faketime)";
    }

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        return new WorkerProcess.Options(0, "+" + OFFSET_SECONDS, Duration.ZERO, false, null);
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        WorkerProcess victim = cluster.victim();
        // The offset is in force from the victim's start (LD_PRELOAD): the fault has happened whether or
        // not the victim manages to claim under it.
        cluster.faults().record(FaultEvent.CLOCK_SKEW, victim.owner(), "wall clock +" + OFFSET_SECONDS
                + " s (libfaketime in pid " + victim.process().pid() + ", since its start)");
        boolean holding = FaultInjector.awaitHolding(victim, window);
        cluster.faults().record("clock-skew-observed", victim.owner(), holding
                ? "the skewed worker holds claims" : "the skewed worker claimed nothing within " + window);
        Poll.until(() -> false, Duration.ofMillis(100), window.dividedBy(2));
    }
}
