package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.OperationTimeoutException;
import com.hazelcast.cp.CPGroup;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.cp.session.CPSession;
import com.hazelcast.cp.session.CPSessionManagementService;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Calls whose outcome the manager does not learn, against three embedded CP members (session TTL
 * 10 s, heartbeat 1 s): a tryLock that took effect on the CP group with its reply lost, and a
 * renewal that runs on its owner thread after its caller stopped waiting. The server state is real;
 * only the loss of the reply is injected, at the manager's fault point after the tryLock returned.
 */
class LostReplyIT {

    private static final Duration TTL = Duration.ofSeconds(9);
    private static CpCluster cluster;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = CpCluster.startThreeCpMembers();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /**
     * The tryLock commits (the lock is held by the manager's session and owner thread, count 1) and
     * the manager hears a failure. Its next acquire of the key must not re-enter the lock and be
     * granted under that fence; the lock is unlocked in the background, so that another manager gets
     * the key under a higher fence, and the manager's own later grant holds the lock once.
     */
    @Test
    void aTryLockWhoseReplyIsLostIsNeitherGrantedUnderItsFenceNorKeptFromOthers() {
        String namespace = "lost-reply-" + UUID.randomUUID();
        HazelcastLeaseManager manager = manager(cluster.members.get(0), namespace, Duration.ofSeconds(5));
        HazelcastLeaseManager other = manager(cluster.members.get(1), namespace, Duration.ofSeconds(5));
        String key = "row-" + UUID.randomUUID();
        AtomicLong lostFence = new AtomicLong();
        manager.acquisition().afterTryLock((name, fence) -> {
            if (lostFence.compareAndSet(0, fence)) {
                throw new OperationTimeoutException("the reply of tryLock(" + name + ") was lost");
            }
        });

        assertThatThrownBy(() -> manager.acquire(request(key))).isInstanceOf(LeaseManagerException.class)
                .hasRootCauseInstanceOf(OperationTimeoutException.class);
        FencedLock observed = cluster.members.get(2).getCPSubsystem().getLock(manager.lockName(key));
        assertThat(lostFence.get()).as("the lost tryLock's fence").isPositive();

        List<Lease> again = manager.acquire(request(key));
        assertThat(again).as("the manager's next acquire of %s, whose lock it took under fence %d without knowing it", key, lostFence.get())
                .allSatisfy(lease -> assertThat(lease.fence()).isGreaterThan(lostFence.get()));
        manager.release(again);

        List<Lease> taken = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> taken.addAll(other.acquire(request(key))));
        assertThat(taken.get(0).fence()).as("another manager's grant after the lost reply").isGreaterThan(lostFence.get());
        other.release(taken);

        List<Lease> mine = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> mine.addAll(manager.acquire(request(key))));
        assertThat(mine.get(0).fence()).isGreaterThan(taken.get(0).fence());
        assertThat(observed.getLockCount()).as("holds of %s under the manager's new grant", key).isEqualTo(1);
        manager.release(mine);
        assertThat(observed.isLocked()).isFalse();
    }

    /**
     * A renewal whose caller gave up (its owner thread was busy past the operation timeout) runs
     * later, finds the lock lost (the manager's CP session was closed by the cluster), and must
     * report the loss: nobody else will, since the lock is no longer tracked.
     */
    @Test
    void aRenewalThatRunsAfterItsCallerGaveUpReportsTheLossItFinds() throws Exception {
        String namespace = "late-renewal-" + UUID.randomUUID();
        HazelcastInstance member = cluster.members.get(0);
        HazelcastLeaseManager manager = manager(member, namespace, Duration.ofSeconds(5));
        Map<String, LeaseLoss.Cause> lost = new ConcurrentHashMap<>();
        manager.addLeaseLossListener(loss -> loss.leases().forEach(lease -> lost.put(lease.key(), loss.cause())));
        String key = "row-" + UUID.randomUUID();
        Lease lease = manager.acquire(request(key)).get(0);

        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        manager.ownerThreads().of(manager.lockName(key)).submit(() -> {
            blocked.countDown();
            return busy.await(60, TimeUnit.SECONDS);
        });
        assertThat(blocked.await(30, TimeUnit.SECONDS)).isTrue();
        closeSessionsOf(member);
        assertThatThrownBy(() -> manager.renew(List.of(lease))).isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("got no answer");
        busy.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> lost.containsKey(key));
        assertThat(lost.get(key)).as("how the late renewal's loss of %s was reported", key).isEqualTo(LeaseLoss.Cause.SESSION_EXPIRED);
    }

    /** Closes every CP session of {@code member} in the default CP group, as the cluster does when one expires. */
    private static void closeSessionsOf(HazelcastInstance member) throws Exception {
        CPSessionManagementService sessions = cluster.members.get(2).getCPSubsystem().getCPSessionManagementService();
        String address = member.getCluster().getLocalMember().getAddress().toString();
        int closed = 0;
        for (CPSession session : sessions.getAllSessions(CPGroup.DEFAULT_GROUP_NAME).toCompletableFuture()
                .get(30, TimeUnit.SECONDS)) {
            if (session.endpoint().toString().equals(address)) {
                sessions.forceCloseSession(CPGroup.DEFAULT_GROUP_NAME, session.id()).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
                closed++;
            }
        }
        assertThat(closed).as("CP sessions of %s closed", address).isPositive();
    }

    private HazelcastLeaseManager manager(HazelcastInstance member, String namespace, Duration operationTimeout) {
        HazelcastLeaseManager manager = HazelcastLeaseManager.using(member, HazelcastLeaseConfig.existingInstance().namespace(namespace)
                .peerRanks(false).leaseTtl(TTL).operationTimeout(operationTimeout).build());
        closing.add(manager);
        return manager;
    }

    private static LeaseRequest request(String key) {
        return new LeaseRequest(List.of(key), "worker", TTL);
    }
}
