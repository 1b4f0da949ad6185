package dev.leasebox.bench;

/**
 * What one latency cell measured: open-loop arrivals at {@code targetRate}, each row inserted and committed
 * by a writer of its own, and the time from that commit to the row's first emission and to its completion
 * being written.
 *
 * @param load          {@code idle} (a low rate, rows one at a time) or {@code loaded} (half the measured maximum,
 *                      or {@code --rate})
 * @param targetRate    planned arrivals a second (a Poisson process)
 * @param rateSource    where the rate came from, e.g. "half of 19,804 rows/s measured" or "--rate"
 * @param wakeUps       whether the workers ran with wake-ups
 * @param arrivals      arrivals planned in the window (all of them committed)
 * @param late          arrivals the writer began more than {@link ArrivalWriter#LATE} after their planned time
 * @param commits       transactions the writer committed them in (arrivals that fell due together share one)
 * @param unfinished    arrivals of the window not finalized when the cell stopped waiting for them
 * @param emission      commit to first emission
 * @param finalized     commit to the completion written
 * @param writerLag     planned time to the writer beginning the insert
 */
record LatencyFigures(String load, double targetRate, String rateSource, boolean wakeUps, long arrivals, long late,
                      long commits, long unfinished, LatencySummary emission, LatencySummary finalized,
                      LatencySummary writerLag) {

    static final String IDLE = "idle";
    static final String LOADED = "loaded";
}
