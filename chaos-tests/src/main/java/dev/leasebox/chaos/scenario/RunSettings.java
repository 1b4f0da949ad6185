package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.harness.Granularity;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How one scenario run is sized and where it reports.
 *
 * @param jdbcBaseUrl    PostgreSQL (a fresh schema is created per run)
 * @param duration       the fault window, during which entries keep being enqueued
 * @param lease          the workers' lease duration
 * @param initialEntries entries enqueued before the workers start
 * @param entriesPerSecond entries enqueued per second during the window
 * @param drainTimeout   how long after the window the workers get to finish everything
 * @param reportDir      where this run's directory is created
 * @param unsafeNoFence  workers complete without the fence (the checker must then fail fencing scenarios)
 * @param keepSchema     leave the run's schema in the database for inspection
 * @param granularity    what the workers lease (row leases unless a partition run is asked for)
 */
public record RunSettings(String jdbcBaseUrl, Duration duration, Duration lease, int initialEntries,
                          int entriesPerSecond, Duration drainTimeout, Path reportDir, boolean unsafeNoFence,
                          boolean keepSchema, Granularity granularity) {

    public static final String DEFAULT_JDBC = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    public static RunSettings defaults(Path reportDir) {
        return new RunSettings(DEFAULT_JDBC, Duration.ofSeconds(15), Duration.ofSeconds(3), 300, 150,
                Duration.ofSeconds(40), reportDir, false, false, Granularity.ROW);
    }

    public RunSettings withDuration(Duration d) {
        return new RunSettings(jdbcBaseUrl, d, lease, initialEntries, entriesPerSecond, drainTimeout, reportDir,
                unsafeNoFence, keepSchema, granularity);
    }

    public RunSettings withLease(Duration l) {
        return new RunSettings(jdbcBaseUrl, duration, l, initialEntries, entriesPerSecond, drainTimeout, reportDir,
                unsafeNoFence, keepSchema, granularity);
    }

    public RunSettings withUnsafeNoFence(boolean unsafe) {
        return new RunSettings(jdbcBaseUrl, duration, lease, initialEntries, entriesPerSecond, drainTimeout, reportDir,
                unsafe, keepSchema, granularity);
    }

    public RunSettings withGranularity(Granularity g) {
        return new RunSettings(jdbcBaseUrl, duration, lease, initialEntries, entriesPerSecond, drainTimeout, reportDir,
                unsafeNoFence, keepSchema, g);
    }

    public RunSettings withWorkload(int initial, int perSecond) {
        return new RunSettings(jdbcBaseUrl, duration, lease, initial, perSecond, drainTimeout, reportDir,
                unsafeNoFence, keepSchema, granularity);
    }
}
