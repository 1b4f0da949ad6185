package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three embedded CP members of which two are terminated: the CP group has lost its majority, and
 * every CP call of the manager on the remaining member waits on its owner thread until the call
 * fails, much longer than a lease's ttl. The lapse of a lease must still be reported when it is due.
 */
class LostMajorityIT {

    private static final Duration TTL = Duration.ofSeconds(3);
    private CpCluster cluster;
    private HazelcastLeaseManager manager;

    @BeforeEach
    void startCluster() {
        cluster = CpCluster.startThreeCpMembers();
    }

    @AfterEach
    void stopCluster() {
        cluster.close(); // terminates the members first: closing the manager would wait on its owner threads
        if (manager != null) {
            manager.close();
        }
    }

    @Test
    void aLapseIsReportedOnTimeWhileTheOwnerThreadsWaitOnALostMajority() {
        HazelcastInstance survivor = cluster.members.get(0);
        manager = HazelcastLeaseManager.using(survivor, HazelcastLeaseConfig.existingInstance().namespace("majority-" + UUID.randomUUID())
                .peerRanks(false).leaseTtl(TTL).operationTimeout(Duration.ofSeconds(5)).build());
        Map<String, LeaseLoss.Cause> lost = new ConcurrentHashMap<>();
        manager.addLeaseLossListener(loss -> loss.leases().forEach(lease -> lost.put(lease.key(), loss.cause())));
        List<String> keys = List.of("row-1", "row-2", "row-3", "row-4");
        List<Lease> held = manager.acquire(new LeaseRequest(keys, "worker", TTL));
        assertThat(held).hasSize(keys.size());

        cluster.members.get(1).getLifecycleService().terminate();
        cluster.members.get(2).getLifecycleService().terminate();
        Thread renewer = new Thread(() -> {
            try {
                manager.renew(held); // its getFence calls occupy the owner threads until the cluster answers
            } catch (RuntimeException expected) {
                // the caller stops waiting after the operation timeout; the owner threads do not
            }
        });
        renewer.setDaemon(true);
        renewer.start();

        await().atMost(TTL.plus(Duration.ofSeconds(10))).untilAsserted(() -> assertThat(lost)
                .as("leases reported lost while the CP group has no majority").containsOnlyKeys(keys));
        assertThat(lost.values()).containsOnly(LeaseLoss.Cause.DEADLINE_PASSED);
    }

    /**
     * The only way back after losing the majority: new members and a reset of the CP Subsystem,
     * which discards its Raft logs, so fences start again. A manager that lived through the outage
     * refuses a fence not above those it was handed; a fresh one cannot know, and is granted a key
     * under a fence at most that of the key's grant before the outage: only the store's per-row fence
     * high-water mark can refuse what it writes under it.
     */
    @Test
    void afterAResetOfTheCpSubsystemFencesRepeat() throws Exception {
        HazelcastInstance survivor = cluster.members.get(0);
        String namespace = "reset-" + UUID.randomUUID();
        manager = HazelcastLeaseManager.using(survivor, HazelcastLeaseConfig.existingInstance().namespace(namespace)
                .peerRanks(false).leaseTtl(TTL).operationTimeout(Duration.ofSeconds(5)).build());
        Lease before = manager.acquire(new LeaseRequest(List.of("row-1"), "worker", TTL)).get(0);
        cluster.members.get(1).getLifecycleService().terminate();
        cluster.members.get(2).getLifecycleService().terminate();
        cluster.members.subList(1, 3).clear();

        List<HazelcastInstance> started = cluster.startReplacements(2);
        assertThat(started).as("new members started").hasSize(2);
        survivor.getCPSubsystem().getCPSubsystemManagementService().reset().toCompletableFuture().get(2, java.util.concurrent.TimeUnit.MINUTES);

        HazelcastLeaseManager fresh = HazelcastLeaseManager.using(started.get(0), HazelcastLeaseConfig.existingInstance()
                .namespace(namespace).peerRanks(false).leaseTtl(TTL).build());
        try {
            List<Lease> after = new java.util.ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> after.addAll(fresh.acquire(
                    new LeaseRequest(List.of("row-1"), "worker", TTL))));
            assertThat(after.get(0).fence()).as("row-1's fence after the reset, granted by a fresh manager (%d before it)", before.fence())
                    .isLessThanOrEqualTo(before.fence());
            fresh.release(after);
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> assertThat(manager.acquire(
                    new LeaseRequest(List.of("row-2"), "worker", TTL))).as("the surviving manager's grants, all fences repeated").isEmpty());
        } finally {
            fresh.close();
        }
    }
}
