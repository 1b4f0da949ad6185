package dev.leasebox.lease.hazelcast;

import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.MariaDbWakeUpScenarios;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/**
 * {@link MariaDbWakeUpScenarios} through a Hazelcast topic: each process a manager on a member of its own of a
 * three-member CP cluster, with the same lock prefix.
 */
class MariaDbWakeUpsThroughHazelcastIT extends MariaDbWakeUpScenarios<HazelcastLeaseManager> {

    private static final Duration LEASE = Duration.ofSeconds(8); // within the test cluster's CP session TTL (10 s)

    private static CpCluster cluster;

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

    /** A manager on member {@code process} of the cluster, which it leaves running when closed. */
    @Override
    protected HazelcastLeaseManager manager(String namespace, int process) {
        return HazelcastLeaseManager.using(cluster.members.get(process),
                HazelcastLeaseConfig.existingInstance().namespace(namespace).build());
    }

    @Override
    protected DrainOptions.Builder drainOptions() {
        return DrainOptions.builder().leaseDuration(LEASE);
    }
}
