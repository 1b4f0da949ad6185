package dev.leasebox.bench;

import java.util.Random;

/**
 * The planned arrival times of an open-loop load: a Poisson process of {@code ratePerSecond}, its
 * inter-arrival gaps exponentially distributed with mean {@code 1 / rate}. Seeded, so that two runs
 * of the same cell plan the same arrivals. Times are nanoseconds from the schedule's start; the
 * writer that follows it never waits for the drain, so a slow drain cannot thin the arrivals.
 */
final class PoissonSchedule {

    private final double meanGapNanos;
    private final Random random;
    private long next;

    PoissonSchedule(double ratePerSecond, long seed) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("an arrival rate must be a positive number of rows a second, was "
                    + ratePerSecond);
        }
        this.meanGapNanos = 1e9 / ratePerSecond;
        this.random = new Random(seed);
    }

    /** The next planned arrival, in nanoseconds from the start; strictly later than the previous one. */
    long next() {
        next += Math.max(1, Math.round(gap(random.nextDouble(), meanGapNanos)));
        return next;
    }

    /** The exponential gap of mean {@code mean} at uniform draw {@code u} in [0, 1): inverse transform sampling. */
    static double gap(double u, double mean) {
        return -Math.log1p(-u) * mean;
    }
}
