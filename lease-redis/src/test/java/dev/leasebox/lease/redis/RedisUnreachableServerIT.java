package dev.leasebox.lease.redis;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.lease.LeaseManagerException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Nothing listens at the configured address: start fails at once, in one line naming it. */
class RedisUnreachableServerIT {

    @Test
    void startFailsWithOneLineNamingTheAddressTriedAndNotThePassword() {
        int port = LoopbackPorts.free();
        RedisLeaseConfig config = RedisLeaseConfig.builder()
                .uri("redis://app:hidden-secret@127.0.0.1:" + port + "/2")
                .namespace("unreachable-it")
                .connectTimeout(Duration.ofMillis(500))
                .build();

        assertThatThrownBy(() -> RedisLeaseManager.start(config))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Redis at redis://app@127.0.0.1:" + port + "/2 is unreachable")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hidden-secret").doesNotContain("\n"));
    }
}
