package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The victim worker's wall clock jumped ahead by two leases, then back, through libfaketime
 * (LD_PRELOAD into the worker JVM, the offset read from a file every second; monotonic time left
 * alone). A clock ahead makes the victim count its own claims lost early and, on the database
 * backend, judge other workers' claims expired early: duplicates may follow, but fencing must keep
 * every stale completion out, and nothing may be lost. Needs the Debian package {@code faketime}.
 */
public final class ClockSkew implements FaultInjector {

    private Path skewFile;

    /** Why this fault cannot run here, or empty when it can. */
    public static String unavailableReason() {
        return Files.exists(WorkerProcess.LIBFAKETIME) ? "" : WorkerProcess.LIBFAKETIME + " is missing (apt-get install faketime)";
    }

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        skewFile = runDir.resolve("faketime-offset");
        write("+0");
        return new WorkerProcess.Options(0, skewFile, Duration.ZERO, false, null);
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        long seconds = Math.max(1, cluster.lease().multipliedBy(2).toSeconds());
        write("+" + seconds);
        cluster.faults().record(FaultEvent.CLOCK_SKEW, victim.owner(), "wall clock +" + seconds + " s (libfaketime)");
        Poll.until(() -> false, Duration.ofMillis(100), window.dividedBy(2));
        write("+0");
        cluster.faults().record("clock-restored", victim.owner(), "wall clock +0 s");
    }

    @Override
    public void heal(ChaosCluster cluster) {
        if (skewFile != null && Files.exists(skewFile)) {
            write("+0");
        }
    }

    private void write(String offset) {
        try {
            Files.createDirectories(skewFile.getParent());
            Files.writeString(skewFile, offset + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + skewFile + ": " + e.getMessage(), e);
        }
    }
}
