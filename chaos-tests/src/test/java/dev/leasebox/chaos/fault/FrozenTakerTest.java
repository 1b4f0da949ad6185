package dev.leasebox.chaos.fault;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrozenTakerTest {

    private static final String DETAIL = "leasebox-drain-w2-0: [Takeover[key=row-46, version=0, token=95f7], "
            + "Takeover[key=row-52, version=3, token=60d1], Takeover[key=row-58, version=0, token=f796], "
            + "Takeover[key=row-64, version=1, token=1c0d], Takeover[key=row-70, version=0, token=5640]]";

    @Test
    void theHeldRoundsKeysNameTheEntriesToWatchAndTheFaultLogSummarisesThem() {
        assertThat(FrozenTaker.entries(DETAIL)).accepts(46L, 52L, 58L, 64L, 70L).rejects(47L, 128L);
        assertThat(FrozenTaker.entries("[Takeover[key=row-group-3, version=1, token=ab]]"))
                .as("rows grouped 128 a lease over 4096 groups: group 3 holds rows 384..511, and again from 524,672")
                .accepts(384L, 511L, 524_672L).rejects(383L, 512L, 3L);
        assertThat(FrozenTaker.summary(DETAIL)).isEqualTo("5 node(s) expired (row-46 at version 0, row-52 at version 3, "
                + "row-58 at version 0, row-64 at version 1, …)");
    }

    @Test
    void aRunInWhichNoThreadReachedItsFaultPointStopsWithTheRulesTarget() {
        assertThatThrownBy(() -> FrozenTaker.requireReached("zookeeper-takeover", 0, "LeaseAcquisition.round"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no worker thread reached the fault point zookeeper-takeover")
                .hasMessageContaining("LeaseAcquisition.round");
        assertThatCode(() -> FrozenTaker.requireReached("zookeeper-takeover", 1, "LeaseAcquisition.round"))
                .doesNotThrowAnyException();
    }
}
