package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.LeaseManagerContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

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

    @Override
    protected Duration expiryTimeout() {
        return leaseTtl().plusSeconds(5);
    }
}
