package dev.leasebox.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class BenchArithmeticTest {

    @Test
    void nearestRankPercentilesPickTheSmallestSampleCoveringTheShare() {
        long[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertThat(Percentiles.nearestRank(sorted, 50)).isEqualTo(5);
        assertThat(Percentiles.nearestRank(sorted, 90)).isEqualTo(9);
        assertThat(Percentiles.nearestRank(sorted, 99)).isEqualTo(10);
        assertThat(Percentiles.nearestRank(sorted, 100)).isEqualTo(10);
        assertThat(Percentiles.nearestRank(sorted, 0.1)).isEqualTo(1);
        assertThat(Percentiles.nearestRank(new long[]{42}, 99)).isEqualTo(42);
    }

    @Test
    void percentilesOfNothingAreNaNAndOutOfRangeRanksAreRefused() {
        assertThat(Percentiles.nearestRank(new long[0], 50)).isNaN();
        assertThatThrownBy(() -> Percentiles.nearestRank(new long[]{1}, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Percentiles.nearestRank(new long[]{1}, 101)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void millisConvertsNanosecondSamples() {
        assertThat(Percentiles.millis(new long[]{1_500_000, 2_500_000}, 50)).isEqualTo(1.5);
    }

    @Test
    void rateIsRowsOverTheWindowInSeconds() {
        assertThat(Percentiles.rate(5_000, 2_000_000_000L)).isEqualTo(2_500.0);
        assertThat(Percentiles.rate(0, 0)).isZero();
        assertThatThrownBy(() -> Percentiles.rate(-1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ratioNeedsAPositiveBaseline() {
        assertThat(Percentiles.ratio(700, 1000)).isCloseTo(0.7, within(1e-12));
        assertThat(Percentiles.ratio(700, 0)).isNaN();
        assertThat(Percentiles.ratio(Double.NaN, 1000)).isNaN();
    }

    @Test
    void latencyRecorderKeepsOnlyTheWindowAndSortsIt() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(99);
        recorder.start();
        for (int i = 5_000; i > 0; i--) {
            recorder.record(i);
        }
        recorder.stop();
        recorder.record(1_000_000);
        long[] sorted = recorder.sorted();
        assertThat(sorted).hasSize(5_000);
        assertThat(sorted[0]).isEqualTo(1);
        assertThat(sorted[4_999]).isEqualTo(5_000);
    }

    @Test
    void chartScaleRoundsUpToOneTwoTwoAndAHalfOrFive() {
        assertThat(BenchChart.niceCeiling(7_300)).isEqualTo(10_000);
        assertThat(BenchChart.niceCeiling(1_800)).isEqualTo(2_000);
        assertThat(BenchChart.niceCeiling(2_100)).isEqualTo(2_500);
        assertThat(BenchChart.niceCeiling(0.93)).isEqualTo(1.0);
        assertThat(BenchChart.niceCeiling(0)).isEqualTo(1);
    }

    @Test
    void failoverRoundsReportMedianAndWorstDelayInSeconds() {
        FailoverBench.Round round = new FailoverBench.Round("redis", 1, 3, new long[]{5_000_000, 5_300_000, 6_400_000}, 0);
        assertThat(round.medianSeconds()).isEqualTo(5.3);
        assertThat(round.maxSeconds()).isEqualTo(6.4);
        FailoverBench.Round none = new FailoverBench.Round("redis", 2, 0, new long[0], 0);
        assertThat(none.medianSeconds()).isNaN();
        assertThat(none.maxSeconds()).isNaN();
    }
}
