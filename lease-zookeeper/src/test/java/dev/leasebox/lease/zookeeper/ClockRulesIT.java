package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.MutableClock;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Which clock decides what: local deadlines are monotonic, takeovers wait for the written deadline plus the skew bound. */
class ClockRulesIT {

    private static final Duration TTL = Duration.ofSeconds(2);

    @RegisterExtension
    static final ZooKeeperServerExtension zk = new ZooKeeperServerExtension();

    private ZooKeeperLeaseManager manager(ZooKeeperLeaseConfig.Builder config) {
        return zk.manager(config);
    }

    private ZooKeeperLeaseConfig.Builder config(String namespace) {
        return zk.config(namespace);
    }

    @Test
    void aWallClockStepBackDoesNotStretchTheHoldersLocalDeadline() {
        MutableClock wall = new MutableClock(Instant.now());
        ZooKeeperLeaseManager holder = manager(config("clock-step").clock(wall));
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        holder.addLeaseLossListener(losses::add);
        long grantedAt = System.nanoTime();
        Lease lease = holder.acquire(new LeaseRequest(List.of("row-1"), "holder", TTL)).get(0);

        wall.set(wall.instant().minus(Duration.ofHours(1)));
        await("the ttl to pass on the monotonic clock").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> System.nanoTime() - grantedAt > TTL.toNanos());

        assertThat(holder.renew(List.of(lease))).as("a renewal after the local deadline, the wall clock an hour back").isEmpty();
        assertThat(losses).extracting(LeaseLoss::cause).containsExactly(LeaseLoss.Cause.DEADLINE_PASSED);
    }

    @Test
    void aTakerTakesANodeOverOnlyOnceItsClockIsPastTheWrittenDeadlinePlusTheMaximumSkew() throws Exception {
        ZooKeeperLeaseManager holder = manager(config("clock-skew"));
        holder.acquire(new LeaseRequest(List.of("row-1"), "holder", TTL));
        CuratorFramework observer = zk.plainClient();
        Instant deadline = LeaseNodeData.decode(observer.getData().forPath("/clock-skew/leases/row-1")).orElseThrow().deadline();

        MutableClock takerWall = new MutableClock(deadline.plusMillis(900));
        ZooKeeperLeaseManager taker = manager(config("clock-skew").clock(takerWall).maxClockSkew(Duration.ofSeconds(1)));
        assertThat(taker.acquire(new LeaseRequest(List.of("row-1"), "taker", TTL)))
                .as("0.9 s past the written deadline, within the 1 s skew bound").isEmpty();

        takerWall.set(deadline.plusMillis(1_001));
        assertThat(taker.acquire(new LeaseRequest(List.of("row-1"), "taker", TTL)))
                .as("1.001 s past the written deadline").hasSize(1);
    }
}
