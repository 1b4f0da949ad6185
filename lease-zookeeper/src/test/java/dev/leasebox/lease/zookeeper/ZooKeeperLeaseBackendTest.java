package dev.leasebox.lease.zookeeper;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.lease.LeaseManagerException;
import org.junit.jupiter.api.Test;

import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key the backend declares for its address ({@link ZooKeeperLeaseBackend#addressKey()}) is the one its messages
 * use, so a host opening it by name puts its own setting there.
 */
class ZooKeeperLeaseBackendTest {

    @Test
    void anUnreachableEnsembleIsReportedInTheHostsSetting() {
        LeaseboxSettings settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS)
                .set("backend", "zookeeper").set("zookeeper", "127.0.0.1:1")
                .backendOption("connection-timeout", "200ms").build();

        assertThatThrownBy(() -> settings.openLeases(Clock.systemUTC())).isInstanceOf(LeaseManagerException.class)
                .hasMessage("ZooKeeper ensemble at 127.0.0.1:1 is not reachable within 200ms: "
                        + "check --zookeeper and that the servers are running");
    }

    @Test
    void aBadConnectStringIsReportedInTheHostsSetting() {
        LeaseboxSettings settings = LeaseboxSettings.builder(LeaseboxSettings.Spelling.FLAGS)
                .set("backend", "zookeeper").set("zookeeper", "127.0.0.1:2181/chroot").build();

        assertThatThrownBy(() -> settings.openLeases(Clock.systemUTC())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--zookeeper = 127.0.0.1:2181/chroot is invalid");
    }
}
