package dev.leasebox.chaos.fault;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How long each partition scenario cuts the victim off, against its lease and its coordinator's session. */
class NetworkPartitionTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @Test
    void theShortCutOutlastsTheLeaseAndEndsWithinTheSession() {
        Duration hazelcast = NetworkPartition.hold(true, LEASE, Optional.of(Duration.ofSeconds(6)), "hazelcast");
        assertThat(hazelcast).isEqualTo(Duration.ofMillis(4500)).isGreaterThan(LEASE).isLessThan(Duration.ofSeconds(6));
        Duration zookeeper = NetworkPartition.hold(true, LEASE, Optional.of(Duration.ofSeconds(15)), "zookeeper");
        assertThat(zookeeper).isEqualTo(Duration.ofSeconds(9));
    }

    @Test
    void theLongCutHoldsThreeLeasesAndAtLeastTwelveSeconds() {
        assertThat(NetworkPartition.hold(false, LEASE, Optional.of(Duration.ofSeconds(6)), "hazelcast"))
                .isEqualTo(Duration.ofSeconds(12));
        assertThat(NetworkPartition.hold(false, Duration.ofSeconds(5), Optional.empty(), "redis"))
                .isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void aShortCutIsRefusedWhereItCannotBeShorterThanTheSession() {
        assertThatThrownBy(() -> NetworkPartition.hold(true, Duration.ofSeconds(6), Optional.of(Duration.ofSeconds(6)),
                "hazelcast")).hasMessage("short-partition cuts the worker off for longer than its lease but shorter than "
                + "hazelcast's session of 6 s: use a --lease below 6s");
        assertThatThrownBy(() -> NetworkPartition.hold(true, LEASE, Optional.empty(), "redis"))
                .hasMessageContaining("needs a coordinator with sessions (zookeeper or hazelcast), not redis");
    }
}
