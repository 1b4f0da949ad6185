package dev.leasebox.lease.hazelcast;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CpSessionTimingTest {

    private final CpSessionTiming timing = new CpSessionTiming(Duration.ofSeconds(10), Duration.ofSeconds(1), "test");

    @Test
    void aTtlUpToSessionTtlMinusHeartbeatAgrees() {
        assertThat(timing.maxLeaseTtl()).isEqualTo(Duration.ofSeconds(9));
        assertThat(timing.check(Duration.ofSeconds(9))).isEmpty();
        assertThat(timing.check(Duration.ofSeconds(5))).isEmpty();
    }

    @Test
    void aTtlAboveSessionTtlMinusHeartbeatIsRefusedNamingBothValuesAndTheFix() {
        assertThatThrownBy(() -> timing.check(Duration.ofMillis(9_001)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTtl PT9.001S").hasMessageContaining("session TTL 10 s, heartbeat 1 s")
                .hasMessageContaining("session-time-to-live-seconds to at least 10");
    }

    @Test
    void aTtlFarBelowTheSessionTtlIsAcceptedWithAOneLineWarning() {
        assertThat(timing.check(Duration.ofSeconds(4)))
                .hasValueSatisfying(w -> assertThat(w).contains("crashed holder").contains("PT11S").doesNotContain("\n"));
    }

    @Test
    void hazelcastDefaultsAllowLeasesUpTo295Seconds() {
        CpSessionTiming defaults = new CpSessionTiming(HazelcastLeaseConfig.DEFAULT_SESSION_TTL, HazelcastLeaseConfig.DEFAULT_HEARTBEAT, "defaults");
        assertThat(defaults.maxLeaseTtl()).isEqualTo(Duration.ofSeconds(295));
    }
}
