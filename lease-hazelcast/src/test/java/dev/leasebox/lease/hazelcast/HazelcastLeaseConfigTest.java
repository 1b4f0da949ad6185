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
    void rowLockSlotsLingerHalfASecondByDefaultAndNeverWhenASlotServesARowAtATime() {
        assertThat(HazelcastLeaseConfig.existingInstance().build().rowLockLinger()).isEqualTo(Duration.ofMillis(500));
        assertThat(HazelcastLeaseConfig.existingInstance().rowLockLinger(Duration.ZERO).build().rowLockLinger()).isZero();
        assertThat(HazelcastLeaseConfig.existingInstance().rowLockBlock(1).build().rowLockLinger())
                .as("blocks of one row: nothing for a lingering slot to grant").isZero();
        assertThat(HazelcastLeaseConfig.existingInstance().rowLockSlots(0).build().rowLockLinger()).as("a lock per row").isZero();
        assertThatThrownBy(() -> HazelcastLeaseConfig.existingInstance().rowLockLinger(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rowLockLinger must be in [0, 10000 ms]");
    }

    @Test
    void eachOwnerThreadKeepsTwiceItsShareOfTheRowLockSlotsInLockProxies() {
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().build()))
                .as("4,096 slots over 32 threads, twice").isEqualTo(256);
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().rowLockSlots(65_536).ownerThreads(1).build()))
                .isEqualTo(131_072);
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().rowLockSlots(0).build()))
                .as("a lock per row: 1,024 names over 32 threads, twice").isEqualTo(64);
        assertThat(HazelcastLeaseManager.proxiesPerThread(HazelcastLeaseConfig.existingInstance().rowLockSlots(1).ownerThreads(64).build()))
                .as("the floor").isEqualTo(64);
    }
}
