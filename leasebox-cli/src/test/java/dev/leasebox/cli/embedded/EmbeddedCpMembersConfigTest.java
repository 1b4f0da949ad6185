package dev.leasebox.cli.embedded;

import com.hazelcast.config.Config;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How an embedded CP member is configured, read from its {@link Config} without starting it. */
class EmbeddedCpMembersConfigTest {

    private final Config config = EmbeddedCpMembers.memberConfig("leasebox", 15701, List.of(15701, 15702, 15703), 3,
            Duration.ofSeconds(10), Duration.ofSeconds(1));

    @Test
    void collectsNoMetricsThatNothingReads() {
        // metrics on, a member collects every 5 s and publishes to JMX: background CPU on the workers' cores
        assertThat(config.getMetricsConfig().isEnabled()).isFalse();
    }

    @Test
    void joinsItsListedMembersOnLoopbackWithTheGivenSessionTiming() {
        assertThat(config.getNetworkConfig().getJoin().getTcpIpConfig().getMembers())
                .containsExactly("127.0.0.1:15701", "127.0.0.1:15702", "127.0.0.1:15703");
        assertThat(config.getNetworkConfig().getJoin().getMulticastConfig().isEnabled()).isFalse();
        assertThat(config.getCPSubsystemConfig().getCPMemberCount()).isEqualTo(3);
        assertThat(config.getCPSubsystemConfig().getSessionTimeToLiveSeconds()).isEqualTo(10);
        assertThat(config.getCPSubsystemConfig().getSessionHeartbeatIntervalSeconds()).isEqualTo(1);
    }
}
