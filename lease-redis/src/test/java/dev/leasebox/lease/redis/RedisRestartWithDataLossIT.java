package dev.leasebox.lease.redis;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redis killed with SIGKILL and restarted empty on the same port, as a crash without persistence:
 * the fence counter starts again low, {@code raiseFenceFloor} puts the next fence above every fence
 * granted before, and the flushed script cache is refilled without a failure.
 */
class RedisRestartWithDataLossIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    private RedisTestServer redis;
    private RedisLeaseManager manager;

    @BeforeEach
    void start() {
        redis = RedisTestServer.startLocal();
        manager = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(redis.uri()).namespace("data-loss-it").build());
    }

    @AfterEach
    void stop() throws Exception {
        if (manager != null) {
            manager.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void afterARestartWithoutDataTheCounterGoesBackAndTheFenceFloorPutsTheNextFenceAboveEveryEarlierOne() {
        List<Lease> before = manager.acquire(new LeaseRequest(List.of("a", "b", "c"), "w1", TTL));
        long previousMax = before.stream().mapToLong(Lease::fence).max().orElseThrow();
        assertThat(previousMax).isEqualTo(3);

        redis.kill();
        redis.restartEmpty();
        try (Jedis admin = redis.admin()) {
            assertThat(admin.scriptExists(LeaseScript.ACQUIRE.sha1())).as("script cache after restart").isFalse();
        }

        Lease afterRestart = acquireOnceReconnected("d");
        assertThat(afterRestart.fence()).as("the counter restarted low").isLessThanOrEqualTo(previousMax);
        assertThat(manager.acquire(new LeaseRequest(List.of("a"), "w2", TTL)))
                .as("the old holder's key was forgotten with the data").hasSize(1);

        assertThat(manager.raiseFenceFloor(previousMax)).isTrue();
        Lease afterFloor = manager.acquire(new LeaseRequest(List.of("e"), "w1", TTL)).get(0);

        assertThat(afterFloor.fence()).isGreaterThan(previousMax);
        try (Jedis admin = redis.admin()) {
            assertThat(admin.scriptExists(LeaseScript.ACQUIRE.sha1())).as("EVAL refilled the script cache").isTrue();
        }
    }

    @Test
    void aFenceFloorBelowTheCounterChangesNothing() {
        manager.acquire(new LeaseRequest(List.of("a", "b", "c", "d", "e"), "w1", TTL));

        assertThat(manager.raiseFenceFloor(2)).isTrue();

        assertThat(manager.acquire(new LeaseRequest(List.of("f"), "w1", TTL)).get(0).fence()).isEqualTo(6);
    }

    @Test
    void renewAndReleaseRecoverFromAFlushedScriptCache() {
        List<Lease> held = manager.acquire(new LeaseRequest(List.of("a", "b"), "w1", TTL));
        try (Jedis admin = redis.admin()) {
            admin.scriptFlush();
        }

        assertThat(manager.renew(held)).hasSize(2);
        assertThat(manager.release(held)).hasSize(2);
        assertThat(manager.acquire(new LeaseRequest(List.of("a"), "w2", TTL))).hasSize(1);
    }

    @Test
    void whileRedisIsDownRenewThrowsNamingTheAddressInsteadOfReportingALoss() {
        List<Lease> held = manager.acquire(new LeaseRequest(List.of("a"), "w1", TTL));
        List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        manager.addLeaseLossListener(losses::add);

        redis.kill();

        assertThatThrownBy(() -> manager.renew(held))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Redis at redis://127.0.0.1:" + redis.port() + "/0 is unreachable (renew)");
        assertThat(losses).as("nothing is known to be lost, only unknown").isEmpty();
    }

    /**
     * The pool's connections died with the server; a call on one of them fails with a
     * LeaseManagerException (no retry: an acquire that may have run must not be repeated), and the
     * next one connects afresh.
     */
    private Lease acquireOnceReconnected(String key) {
        AtomicReference<Lease> lease = new AtomicReference<>();
        await("an acquire on the restarted Redis").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .ignoreException(LeaseManagerException.class)
                .until(() -> {
                    List<Lease> granted = manager.acquire(new LeaseRequest(List.of(key), "w1", TTL));
                    lease.set(granted.get(0));
                    return true;
                });
        return lease.get();
    }
}
