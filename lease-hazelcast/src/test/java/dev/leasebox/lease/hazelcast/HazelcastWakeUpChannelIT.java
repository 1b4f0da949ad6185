package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.contract.WakeUpChannelContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/** The wake-up channel contract on Hazelcast topics, between the members of a three-member CP cluster. */
class HazelcastWakeUpChannelIT extends WakeUpChannelContract {

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
                HazelcastLeaseConfig.existingInstance().build());
    }
}
