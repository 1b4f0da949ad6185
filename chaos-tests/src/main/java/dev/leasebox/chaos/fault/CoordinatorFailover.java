package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.RedisCoordinator;
import dev.leasebox.chaos.harness.WorkerProcess;
import dev.leasebox.chaos.history.HistoryEvent;

import java.time.Duration;

/**
 * Redis failover to a replica that has not received the last writes: once the victim holds claims, the replica
 * is frozen, the harness waits until the workers took new claims from the primary (leases and fences the replica
 * will never see), the primary is killed, the replica resumed and promoted with {@code REPLICAOF NO ONE}, and the
 * workers' address moved to it ({@link RedisCoordinator#failover}). The fence guard in the database must refuse
 * every finalization the lost grants could make stale.
 */
public final class CoordinatorFailover implements FaultInjector {

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        if (!(cluster.coordinator() instanceof RedisCoordinator redis)) {
            throw new IllegalStateException("coordinator-failover runs on redis only, not " + cluster.coordinator().backend());
        }
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        redis.failover(cluster.faults(), () -> {
            long frozenAt = System.currentTimeMillis();
            for (WorkerProcess w : cluster.workers()) {
                w.awaitEvent(frozenAt, e -> HistoryEvent.CLAIM.equals(e.kind()), Duration.ofSeconds(10));
            }
        });
    }
}
