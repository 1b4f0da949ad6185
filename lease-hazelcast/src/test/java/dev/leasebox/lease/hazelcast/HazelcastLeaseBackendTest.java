package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseBackendSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Backend options that are refused before any connection is tried (the address is never dialled). */
class HazelcastLeaseBackendTest {

    private static void open(Map<String, String> options) {
        new HazelcastLeaseBackend().open(new LeaseBackendSettings("127.0.0.1:1", "ns", Duration.ofSeconds(9), options));
    }

    @Test
    void peerRanksIsTrueOrFalse() {
        assertThatThrownBy(() -> open(Map.of("peer-ranks", "maybe")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("peer-ranks: expects true or false, was 'maybe'");
    }

    @Test
    void durationsAreReadByTheSharedParserAndMustBePositive() {
        assertThatThrownBy(() -> open(Map.of("operation-timeout", "2 minutes")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operation-timeout: '2 minutes' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
        assertThatThrownBy(() -> open(Map.of("operation-timeout", "0s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("operation-timeout: must be positive, was '0s'");
        assertThatThrownBy(() -> open(Map.of("session-ttl", "10")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("session-ttl: '10' is not a duration");
    }

    @Test
    void unknownOptionsNameTheKnownOnesInKebabCase() {
        assertThatThrownBy(() -> open(Map.of("sessionTtl", "8s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown hazelcast backend option 'sessionTtl'")
                .hasMessageContaining("session-ttl").hasMessageContaining("peer-ranks")
                .hasMessageContaining("operation-timeout").hasMessageContaining("cluster-name");
    }
}
