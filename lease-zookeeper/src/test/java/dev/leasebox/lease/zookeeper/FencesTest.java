package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManagerException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FencesTest {

    @Test
    void everyFenceOfALaterTransactionIsAboveEveryFenceOfAnEarlierOne() {
        long czxid = (7L << 32) | 41;
        long lastOfBatch = Fences.of(czxid, Fences.MAX_PER_MULTI - 1);
        assertThat(Fences.of(czxid + 1, 0)).isGreaterThan(lastOfBatch);
        assertThat(Fences.of(8L << 32, 0)).as("a new leader epoch").isGreaterThan(Fences.of((7L << 32) | 0xFFFF_FFFFL, 255));
    }

    @Test
    void positionsKeepFencesOfOneMultiDistinctAndTheCzxidRecoverable() {
        long czxid = (3L << 32) | 12345;
        assertThat(Fences.of(czxid, 0)).isNotEqualTo(Fences.of(czxid, 1));
        assertThat(Fences.czxidOf(Fences.of(czxid, 200))).isEqualTo(czxid);
    }

    @Test
    void anEpochTooLargeForTheShiftIsRefusedWithAReason() {
        assertThatThrownBy(() -> Fences.of(1L << 56, 0)).isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("leader epoch");
        assertThatThrownBy(() -> Fences.of(1, Fences.MAX_PER_MULTI)).isInstanceOf(IllegalArgumentException.class);
    }
}
