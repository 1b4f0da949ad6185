package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.FaultRules;
import dev.leasebox.chaos.harness.Poll;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.worker.FaultPoints;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Hazelcast unlocks that fail on the lock's owner thread without reaching the CP group, while a failing downstream
 * leaves rows to retry: the lock stays held by the worker's CP session and that thread, so a manager that forgets it
 * re-enters it at its next grant of one of its keys and hands out the earlier grant's fence again, which the row's
 * fence guard then refuses for every row it already raised, while every other worker waits for the lock. A cut-off
 * network rarely fails an unlock on the owner thread (the unlocks complete once it heals), so the victim runs a
 * Byteman rule ({@link FaultRules#hazelcastUnlockFailure}) that fails one unlock per arming, before it is sent.
 * The schedule: 30% of deliveries refused like an HTTP 503 for two thirds of the window (rows left
 * RETRYABLE_FAILURE with raised marks), and the point armed again every lease, at most four times. Nothing may be
 * lost, and no stale write accepted.
 */
public final class FailedUnlock implements FaultInjector {

    private static final String POINT = FaultRules.HAZELCAST_UNLOCK;

    @Override
    public WorkerProcess.Options victimOptions(Path runDir) {
        return WorkerProcess.Options.plain(null)
                .withFaultRules(FaultRules.write(runDir.resolve("fault-rules-w1.btm"), FaultRules.hazelcastUnlockFailure()));
    }

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        long started = System.nanoTime();
        long deadline = started + window.toNanos();
        Path points = WorkerProcess.faultPoints(cluster.runDir());
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        ProviderFaults.write(cluster.providerControl(), "errorRate=0.30\nslowMillis=2\n");
        cluster.faults().record(FaultEvent.PROVIDER_FAULTS, "provider", "30% 503 errors: rows retried under raised fences");
        long healAt = started + window.multipliedBy(2).dividedBy(3).toNanos();
        int failed = 0;
        for (int failure = 0; failure < 4 && System.nanoTime() < deadline; failure++) {
            int armed = FaultPoints.arm(points, POINT);
            String[] detail = {null};
            Poll.until(() -> {
                detail[0] = FaultPoints.reached(points, POINT, armed).orElse(null);
                return detail[0] != null || !victim.process().isAlive();
            }, Duration.ofMillis(5), cluster.lease().multipliedBy(2));
            failed += detail[0] == null ? 0 : 1;
            Optional.ofNullable(detail[0]).ifPresentOrElse(
                    d -> cluster.faults().record(FaultEvent.CALL_FAILED, victim.owner(), "unlock failed at " + POINT
                            + " before it was sent (" + d + "): the lock stays held by the victim's CP session and thread"),
                    () -> cluster.faults().record(FaultEvent.NOT_REACHED, victim.owner(), "no unlock reached " + POINT
                            + " within " + cluster.lease().multipliedBy(2).toSeconds() + " s"));
            Poll.until(() -> false, Duration.ofMillis(100), cluster.lease());
            if (System.nanoTime() >= healAt) {
                healProvider(cluster);
            }
        }
        Poll.until(() -> false, Duration.ofMillis(100), Duration.ofNanos(Math.max(0, healAt - System.nanoTime())));
        healProvider(cluster);
        FrozenTaker.requireReached(POINT, failed, "FencedLock.unlock() of the Hazelcast client");
    }

    @Override
    public void heal(ChaosCluster cluster) {
        healProvider(cluster);
    }

    private static void healProvider(ChaosCluster cluster) {
        if (Files.exists(cluster.providerControl()) && !isHealthy(cluster.providerControl())) {
            ProviderFaults.write(cluster.providerControl(), "slowMillis=1\n");
            cluster.faults().record(FaultEvent.PROVIDER_HEALTHY, "provider", "errors off");
        }
    }

    private static boolean isHealthy(Path control) {
        try {
            return !Files.readString(control).contains("errorRate");
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
