package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;

import java.time.Duration;
import java.util.Set;

/**
 * SIGKILL of a worker JVM while its history shows it holding claims, then a replacement worker (as a
 * supervisor would start one). Its claims must be reclaimed by others after their expiry and
 * nothing may be lost; repeated while the window lasts (at most three kills).
 */
public final class WorkerKill implements FaultInjector {

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        WorkerProcess victim = cluster.victim();
        for (int kill = 0; kill < 3 && System.nanoTime() < deadline; kill++) {
            if (!FaultInjector.awaitHolding(victim, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                break;
            }
            Set<Long> held = victim.heldEntries();
            cluster.faults().record(FaultEvent.KILL, victim.owner(), "SIGKILL pid " + victim.process().pid()
                    + " holding " + held.size() + " claims");
            victim.process().kill();
            victim = cluster.replace(victim, WorkerProcess.Options.plain(null));
            // Leave the replacement one lease to work, and the others time to reclaim, before the next kill.
            dev.leasebox.chaos.harness.Poll.until(() -> false, Duration.ofMillis(100), cluster.lease());
        }
    }
}
