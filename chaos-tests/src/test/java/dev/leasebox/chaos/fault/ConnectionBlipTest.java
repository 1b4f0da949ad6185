package dev.leasebox.chaos.fault;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How long each shape of the connection fault holds, and the leases and sessions it refuses. */
class ConnectionBlipTest {

    @Test
    void aBlipHoldsOneAndAHalfSecondsWithinTheLeaseAndTheSession() {
        assertThat(ConnectionBlip.hold(true, Duration.ofSeconds(5), Optional.of(Duration.ofSeconds(6)), "hazelcast"))
                .isEqualTo(Duration.ofMillis(1500));
        assertThatThrownBy(() -> ConnectionBlip.hold(true, Duration.ofSeconds(3), Optional.empty(), "redis"))
                .hasMessageContaining("use a --lease above 3500ms");
    }

    @Test
    void aCutHoldsHalfwayBetweenARenewalIntervalAndTheLease() {
        // renewal interval 5 s / 3 = 1.667 s: halfway to 5 s is 3.333 s
        assertThat(ConnectionBlip.hold(false, Duration.ofSeconds(5), Optional.of(Duration.ofSeconds(15)), "zookeeper"))
                .isEqualTo(Duration.ofMillis(3333));
        assertThatThrownBy(() -> ConnectionBlip.hold(false, Duration.ofSeconds(9), Optional.of(Duration.ofSeconds(6)),
                "hazelcast")).hasMessageContaining("hazelcast's session of 6000 ms");
    }
}
