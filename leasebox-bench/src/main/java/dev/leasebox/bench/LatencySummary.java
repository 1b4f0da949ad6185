package dev.leasebox.bench;

import org.HdrHistogram.Histogram;

/**
 * p50, p99, p99.9 and the maximum of one latency histogram, in milliseconds. The histogram holds
 * microseconds at three significant digits, so every figure is within 0.1 % of the sample it stands
 * for; NaN for no samples.
 *
 * @param count samples recorded
 */
record LatencySummary(long count, double p50Ms, double p99Ms, double p999Ms, double maxMs) {

    static final LatencySummary NONE = new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** A histogram of microseconds from 1 µs to an hour, three significant digits. */
    static Histogram micros() {
        return new org.HdrHistogram.ConcurrentHistogram(1, 3_600_000_000L, 3);
    }

    /** The summary of a histogram of microseconds. */
    static LatencySummary of(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return NONE;
        }
        return new LatencySummary(micros.getTotalCount(), ms(micros.getValueAtPercentile(50)),
                ms(micros.getValueAtPercentile(99)), ms(micros.getValueAtPercentile(99.9)), ms(micros.getMaxValue()));
    }

    private static double ms(long micros) {
        return micros / 1000.0;
    }

    /** The four figures as CSV fields, milliseconds with three decimals (empty for none). */
    java.util.List<String> csvFields() {
        return java.util.List.of(BenchReport.number(p50Ms, 3), BenchReport.number(p99Ms, 3), BenchReport.number(p999Ms, 3),
                BenchReport.number(maxMs, 3));
    }
}
