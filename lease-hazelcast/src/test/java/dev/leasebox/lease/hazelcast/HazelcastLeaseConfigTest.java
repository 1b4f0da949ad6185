package dev.leasebox.lease.hazelcast;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HazelcastLeaseConfigTest {

    @Test
    void badValuesAreRefusedNamingThePropertyAndTheValue() {
        assertThatThrownBy(() -> HazelcastLeaseConfig.client(List.of(), "c").build())
                .hasMessageContaining("addresses");
        assertThatThrownBy(() -> HazelcastLeaseConfig.client(List.of("127.0.0.1:5701"), " "))
                .hasMessageContaining("clusterName");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().ownerThreads(0).build())
                .hasMessageContaining("ownerThreads").hasMessageContaining("was 0");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().cpGroup("a@b").build())
                .hasMessageContaining("cpGroup").hasMessageContaining("a@b");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().connectTimeout(Duration.ZERO).build())
                .hasMessageContaining("connectTimeout must be positive, was PT0S");
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance()
                .cpSession(Duration.ofSeconds(5), Duration.ofSeconds(5)).build())
                .hasMessageContaining("cpSession.heartbeat PT5S must be shorter than cpSession.ttl PT5S");
    }

    @Test
    void aClientDeclaresHazelcastsDefaultCpSessionUnlessTold() {
        HazelcastLeaseConfig config = HazelcastLeaseConfig.client(List.of("127.0.0.1:5701"), "c").build();
        assertThat(config.declaredSessionTtl()).isEqualTo(Duration.ofSeconds(300));
        assertThat(config.declaredHeartbeat()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.leaseTtl()).isEmpty();
    }

    @Test
    void credentialsAreKeptButNeverShownAsAUsername() {
        HazelcastLeaseConfig config = HazelcastLeaseConfig.client(List.of("127.0.0.1:5701"), "c").credentials("app", "s3cret").build();
        assertThat(config.username()).contains("app");
        assertThat(config.password()).contains("s3cret");
    }

    @Test
    void eachOwnerThreadKeepsTwiceItsShareOfTheDrainsRowGroupsInLockProxies() {
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().build()))
                .as("4,096 row groups over 32 threads, twice").isEqualTo(256);
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().ownerThreads(1).build()))
                .isEqualTo(8_192);
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().ownerThreads(64).build()))
                .isEqualTo(128);
    }
}
