package dev.leasebox.bench;

/**
 * What one cell (a backend at W workers and batch B) measured.
 *
 * @param backend        {@code database}, {@code redis}, {@code zookeeper} or {@code hazelcast}
 * @param workers        drains (each its own pool and lease client, like separate nodes)
 * @param batch          rows claimed per batch
 * @param windowSeconds  length of the steady window that was measured
 * @param rowsInWindow   DELIVERED completions accepted inside the window
 * @param claimP50Ms     median claim call (the whole claim path of one batch), in ms
 * @param claimP90Ms     90th percentile claim call, in ms
 * @param claimP99Ms     99th percentile claim call, in ms
 * @param claimCalls     claim calls inside the window
 * @param deliveredRows  rows DELIVERED in the table once the workers stopped
 * @param completions    DELIVERED completions the store accepted over the whole cell
 * @param finalizedTwice entries with more than one accepted completion (must be 0)
 * @param emittedTwice   entries emitted more than once (0 without faults; allowed only across an expiry)
 * @param refused        completions the store refused as stale
 * @param coordinator    where the leases lived, e.g. "embedded redis-server 127.0.0.1:40123"
 * @param variant        the levers in effect for the external backends, e.g. "claim-mode=recorded
 *                       release-after-completion=always release=sync durable-claims" (the product defaults)
 * @param phases         mean time per call of each phase in the window, e.g. "candidates 2.10 ms, acquire 1.05 ms"
 * @param load1m         the machine's 1-minute load average at the end of the window (NaN when unknown)
 * @param mode           {@code feeder} (steady state: a feeder keeps the backlog topped up through the window) or
 *                       {@code backlog} (a pre-seeded backlog drained to the end, nothing inserted meanwhile)
 * @param round          which round of the run measured it (rounds interleave the backends)
 * @param wakeUps        whether the workers ran with wake-ups
 * @param cpu            CPU seconds of the database, the JVM and the coordinator in the window
 * @param latency        a latency cell's figures (mode {@code latency}); null for a throughput cell
 */
record BenchResult(String backend, int workers, int batch, double windowSeconds, long rowsInWindow,
                   double claimP50Ms, double claimP90Ms, double claimP99Ms, long claimCalls,
                   long deliveredRows, long completions, long finalizedTwice, long emittedTwice, long refused,
                   String coordinator, String variant, String phases, double load1m, String mode, int round,
                   boolean wakeUps, CpuFigures cpu, LatencyFigures latency) {

    static final String FEEDER = "feeder";
    static final String BACKLOG = "backlog";
    /** A latency cell: open-loop arrivals, commit-to-emission and commit-to-finalized latencies. */
    static final String LATENCY = "latency";

    /** A throughput result, without CPU figures, with wake-ups off. */
    BenchResult(String backend, int workers, int batch, double windowSeconds, long rowsInWindow,
                double claimP50Ms, double claimP90Ms, double claimP99Ms, long claimCalls,
                long deliveredRows, long completions, long finalizedTwice, long emittedTwice, long refused,
                String coordinator, String variant, String phases, double load1m, String mode, int round) {
        this(backend, workers, batch, windowSeconds, rowsInWindow, claimP50Ms, claimP90Ms, claimP99Ms, claimCalls,
                deliveredRows, completions, finalizedTwice, emittedTwice, refused, coordinator, variant, phases, load1m,
                mode, round, false, CpuFigures.NONE, null);
    }

    /** A feeder-mode result of the first round. */
    BenchResult(String backend, int workers, int batch, double windowSeconds, long rowsInWindow,
                double claimP50Ms, double claimP90Ms, double claimP99Ms, long claimCalls,
                long deliveredRows, long completions, long finalizedTwice, long emittedTwice, long refused,
                String coordinator, String variant, String phases, double load1m) {
        this(backend, workers, batch, windowSeconds, rowsInWindow, claimP50Ms, claimP90Ms, claimP99Ms, claimCalls,
                deliveredRows, completions, finalizedTwice, emittedTwice, refused, coordinator, variant, phases, load1m,
                FEEDER, 1);
    }

    /** The same result, measured in {@code mode} in round {@code round}. */
    BenchResult in(String mode, int round) {
        return new BenchResult(backend, workers, batch, windowSeconds, rowsInWindow, claimP50Ms, claimP90Ms, claimP99Ms,
                claimCalls, deliveredRows, completions, finalizedTwice, emittedTwice, refused, coordinator, variant, phases,
                load1m, mode, round, wakeUps, cpu, latency);
    }

    /** The same result with the CPU figures of its window, measured with wake-ups {@code on} or off. */
    BenchResult with(CpuFigures figures, boolean on) {
        return new BenchResult(backend, workers, batch, windowSeconds, rowsInWindow, claimP50Ms, claimP90Ms, claimP99Ms,
                claimCalls, deliveredRows, completions, finalizedTwice, emittedTwice, refused, coordinator, variant, phases,
                load1m, mode, round, on, figures, latency);
    }

    /** The same result as a latency cell's, with its latencies. */
    BenchResult with(LatencyFigures figures) {
        return new BenchResult(backend, workers, batch, windowSeconds, rowsInWindow, claimP50Ms, claimP90Ms, claimP99Ms,
                claimCalls, deliveredRows, completions, finalizedTwice, emittedTwice, refused, coordinator, variant, phases,
                load1m, LATENCY, round, wakeUps, cpu, figures);
    }

    /** Whether this is a latency cell's result. */
    boolean isLatency() {
        return latency != null;
    }

    /** Rows finalized per second in the steady window. */
    double rowsPerSecond() {
        return windowSeconds > 0 ? rowsInWindow / windowSeconds : 0;
    }

    /**
     * Whether the cell's checks held: nothing finalized twice, the table agrees with the ledger, and, the
     * cell being free of faults, nothing emitted twice and no completion refused (both need a lease that
     * ended before its holder finished, which a fault-free cell must not see).
     */
    boolean checksHeld() {
        return finalizedTwice == 0 && deliveredRows == completions && emittedTwice == 0 && refused == 0;
    }

    /** The failed checks in one line, empty when they held. */
    String checkFailures() {
        StringBuilder failures = new StringBuilder();
        if (finalizedTwice != 0) {
            failures.append(finalizedTwice).append(" entries finalized twice; ");
        }
        if (emittedTwice != 0) {
            failures.append(emittedTwice).append(" entries emitted twice in a cell without faults; ");
        }
        if (refused != 0) {
            failures.append(refused).append(" completions refused as stale in a cell without faults; ");
        }
        if (deliveredRows != completions) {
            failures.append(deliveredRows).append(" rows DELIVERED but ").append(completions)
                    .append(" completions accepted; ");
        }
        return failures.toString().strip();
    }
}
