package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.WorkerProcess;

import java.time.Duration;

/**
 * The coordinator killed (SIGKILL) while workers hold leases, and started again: Redis comes back
 * empty; in the ZooKeeper ensemble a follower and then the leader are bounced; a Hazelcast CP member
 * is killed and restarted. Leases may be lost; fences must still only grow, and nothing be lost.
 */
public final class CoordinatorRestart implements FaultInjector {

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        cluster.coordinator().restart(cluster.faults(), Duration.ofSeconds(2));
    }
}
