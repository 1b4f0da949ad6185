package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.LeaseManagerException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cluster without CP members (cp-member-count 0) would run FencedLock in "unsafe mode" without
 * Raft; both a member and a client refuse it at start, in one line that says what to configure.
 */
class NoCpSubsystemIT {

    private static CpCluster cluster;

    @BeforeAll
    static void startMemberWithoutCp() {
        cluster = CpCluster.start(1, 0);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aMemberWithoutCpSubsystemIsRefused() {
        assertThatThrownBy(() -> HazelcastLeaseManager.using(cluster.members.get(0), HazelcastLeaseConfig.existingInstance().build()))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("no CP Subsystem (cp-member-count 0)")
                .hasMessageContaining("set cp-subsystem cp-member-count to 3 or more");
    }

    @Test
    void aClientOfAClusterWithoutCpSubsystemIsRefused() {
        HazelcastLeaseConfig config = HazelcastLeaseConfig.client(cluster.addresses(), cluster.clusterName)
                .connectTimeout(Duration.ofSeconds(10)).build();

        assertThatThrownBy(() -> HazelcastLeaseManager.start(config))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("no CP Subsystem (cp-member-count 0)")
                .hasMessageContaining("unsafe mode");
    }
}
