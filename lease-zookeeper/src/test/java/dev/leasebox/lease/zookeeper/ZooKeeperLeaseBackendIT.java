package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The backend opened by name, as the CLI and the starter open it: its options, and what its namespace means. */
class ZooKeeperLeaseBackendIT {

    @RegisterExtension
    static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

    private static final Duration TTL = Duration.ofSeconds(10);

    private LeaseManager byName(String namespace) {
        return ZOOKEEPER.closeAfterTest(new ZooKeeperLeaseBackend().open(new LeaseBackendSettings(ZOOKEEPER.connectString(),
                namespace, TTL, Map.of("session-timeout", "10s", "connection-timeout", "10s"))));
    }

    /**
     * A manager built in code with the default namespace and one opened by name in {@code leasebox} lease the same
     * nodes, so they contend; another namespace leases other nodes.
     */
    @Test
    void aManagerBuiltInCodeAndOneOpenedByNameInOneNamespaceContendForOneLease() {
        List<String> keys = List.of("by-name-" + UUID.randomUUID(), "by-name-" + UUID.randomUUID());
        ZooKeeperLeaseManager inCode = ZOOKEEPER.manager(ZooKeeperLeaseConfig.builder(ZOOKEEPER.connectString()));
        LeaseManager byName = byName(LeaseBackendSettings.DEFAULT_NAMESPACE);
        LeaseManager elsewhere = byName("other-" + UUID.randomUUID().toString().substring(0, 8));

        List<Lease> held = inCode.acquire(new LeaseRequest(keys, "in-code", TTL));
        assertThat(held).hasSize(keys.size());
        assertThat(byName.acquire(new LeaseRequest(keys, "by-name", TTL))).as("same namespace: held in code").isEmpty();
        assertThat(elsewhere.acquire(new LeaseRequest(keys, "other", TTL))).as("another namespace leases other nodes")
                .hasSize(keys.size());

        inCode.release(held);
        assertThat(byName.acquire(new LeaseRequest(keys, "by-name", TTL))).as("released in code, granted by name")
                .hasSize(keys.size());
    }

    @Test
    void optionsAreKebabCaseAndDurationsReadByTheSharedParser() {
        ZooKeeperLeaseBackend backend = new ZooKeeperLeaseBackend();
        assertThatThrownBy(() -> backend.open(new LeaseBackendSettings("127.0.0.1:1", "ns", TTL, Map.of("sessionTimeout", "5s"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown zookeeper backend option 'sessionTimeout': use one of "
                        + "[connection-timeout, digest, max-clock-skew, session-timeout]");
        assertThatThrownBy(() -> backend.open(new LeaseBackendSettings("127.0.0.1:1", "ns", TTL, Map.of("session-timeout", "5000"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("session-timeout: '5000' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
    }
}
