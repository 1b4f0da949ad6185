package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.contract.LeaseManagerContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease contract against three embedded CP members (session TTL 10 s, heartbeat 1 s). Each
 * manager the kit asks for sits on the next member in turn, with its own owner threads, as
 * another node's would.
 */
class HazelcastLeaseManagerIT extends LeaseManagerContract {

    private static CpCluster cluster;
    private final AtomicInteger next = new AtomicInteger();

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

    @Override
    protected LeaseManager newManager() {
        return HazelcastLeaseManager.using(cluster.members.get(next.getAndIncrement() % cluster.members.size()),
                HazelcastLeaseConfig.existingInstance().leaseTtl(longLeaseTtl()).build());
    }

    /** The manager unlocks an unrenewed lease at its ttl; 3 s keeps the expiry tests short. */
    @Override
    protected Duration leaseTtl() {
        return Duration.ofSeconds(3);
    }

    /** At most session TTL minus heartbeat (9 s): longer ttls are refused. */
    @Override
    protected Duration longLeaseTtl() {
        return Duration.ofSeconds(9);
    }

    @Test
    void fencesGrowAcrossDifferentKeysOfOneCpGroup() {
        HazelcastLeaseManager a = hazelcastManager();
        HazelcastLeaseManager b = hazelcastManager();
        long last = 0;
        for (int i = 0; i < 6; i++) {
            HazelcastLeaseManager holder = i % 2 == 0 ? a : b;
            List<Lease> granted = holder.acquire(new LeaseRequest(List.of(key("any-" + i)), owner(), longLeaseTtl()));
            assertThat(granted).hasSize(1);
            assertThat(granted.get(0).fence()).as("fence of grant %d, another key", i).isGreaterThan(last);
            last = granted.get(0).fence();
        }
    }

    @Test
    void aReleasedAndDestroyedKeyIsNeverGrantedAgain() {
        HazelcastLeaseManager a = hazelcastManager();
        HazelcastLeaseManager b = hazelcastManager();
        String key = key("destroyed");
        List<Lease> held = a.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()));

        assertThat(a.releaseAndDestroy(held)).hasSize(1);

        assertThat(b.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()))).as("stale attempt on a destroyed lock").isEmpty();
        assertThat(a.acquire(new LeaseRequest(List.of(key), owner(), longLeaseTtl()))).isEmpty();
    }

    private HazelcastLeaseManager hazelcastManager() {
        return (HazelcastLeaseManager) manager();
    }

    @Override
    protected Duration expiryTimeout() {
        return leaseTtl().plusSeconds(5);
    }
}
