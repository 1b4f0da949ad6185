package dev.leasebox.bench;

/** Nearest-rank percentiles and the other small arithmetic of a benchmark report. */
final class Percentiles {

    private Percentiles() {
    }

    /**
     * The nearest-rank {@code p}-th percentile (0 &lt; p ≤ 100) of {@code sorted} (ascending): the
     * smallest sample such that at least p % of the samples are at or below it. NaN for no samples.
     */
    static double nearestRank(long[] sorted, double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100], was " + p);
        }
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** The nearest-rank percentile of nanosecond samples, in milliseconds. */
    static double millis(long[] sortedNanos, double p) {
        return nearestRank(sortedNanos, p) / 1e6;
    }

    /** Rows per second over a window of {@code nanos}; 0 for an empty window. */
    static double rate(long rows, long nanos) {
        if (rows < 0 || nanos < 0) {
            throw new IllegalArgumentException("rows and window must not be negative, were " + rows + " and " + nanos);
        }
        return nanos == 0 ? 0 : rows * 1e9 / nanos;
    }

    /** {@code value / baseline}; NaN when there is no positive baseline to compare with. */
    static double ratio(double value, double baseline) {
        return baseline > 0 && !Double.isNaN(value) ? value / baseline : Double.NaN;
    }
}
