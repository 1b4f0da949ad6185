package dev.leasebox.lease.spi;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Opening backends by name: missing and unknown names fail with one line saying what to do. */
class LeaseBackendsTest {

    @Test
    void aKnownBackendMissingFromTheClassPathNamesTheModuleToAdd() {
        assertThat(LeaseBackends.available()).doesNotContainKey("zookeeper");
        assertThatThrownBy(() -> LeaseBackends.named("zookeeper"))
                .hasMessage("lease backend 'zookeeper' is not on the class path: add the module lease-zookeeper (available: [])");
    }

    @Test
    void anUnknownBackendListsTheAvailableOnes() {
        assertThatThrownBy(() -> LeaseBackends.named("etcd"))
                .hasMessageStartingWith("unknown lease backend 'etcd': choose one of");
    }

    @Test
    void aNamespaceIsValidatedAsAKeyPrefix() {
        assertThatThrownBy(() -> new LeaseBackendSettings("x", "bad name", Duration.ofSeconds(1), Map.of()))
                .hasMessageContaining("namespace must be 1-64 characters");
        assertThat(new LeaseBackendSettings("x", "{orders}", Duration.ofSeconds(1), Map.of("a", "b")).option("a"))
                .contains("b");
    }
}
