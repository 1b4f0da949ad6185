package dev.leasebox.chaos.worker;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The run's common clock as a worker can read it even when its own wall clock is skewed (libfaketime
 * fakes every wall-clock call in the JVM): the database server's clock, read once at start, advanced
 * by this JVM's monotonic clock (which the chaos harness never fakes). Histories of all workers and
 * the harness's fault log are ordered on it.
 */
final class CommonClock {

    private final long originMillis;
    private final long originNanos;

    private CommonClock(long originMillis, long originNanos) {
        this.originMillis = originMillis;
        this.originNanos = originNanos;
    }

    static CommonClock fromDatabase(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            CommonClock best = null;
            long bestRoundTrip = Long.MAX_VALUE;
            // The first reads load classes and warm the connection: keep the read with the shortest round trip,
            // anchored at its midpoint.
            for (int i = 0; i < 5; i++) {
                long before = System.nanoTime();
                try (ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
                    rs.next();
                    long server = rs.getLong(1);
                    long after = System.nanoTime();
                    if (after - before < bestRoundTrip) {
                        bestRoundTrip = after - before;
                        best = new CommonClock(server, before + (after - before) / 2);
                    }
                }
            }
            return best;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the database clock for the history's common clock: "
                    + e.getMessage(), e);
        }
    }

    long millis() {
        return originMillis + (System.nanoTime() - originNanos) / 1_000_000;
    }
}
