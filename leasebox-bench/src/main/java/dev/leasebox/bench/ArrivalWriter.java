package dev.leasebox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.TableName;
import org.HdrHistogram.Histogram;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop load of a latency cell: one thread with a connection of its own inserts rows at the
 * planned times of a {@link PoissonSchedule}, never waiting for the drain, so that a slow drain cannot
 * slow the arrivals and hide its own delay. Each insert is committed at once and its commit time handed
 * to the {@link LatencyProbe}. When an insert takes longer than the gap to the next arrival, the arrivals
 * that fell due meanwhile go into the next transaction together (they share its commit time), and every
 * arrival begun more than {@link #LATE} after its planned time is counted late: the writer, not the drain,
 * could not keep the schedule. Arrivals planned in the warm-up are written but not measured.
 */
final class ArrivalWriter implements AutoCloseable {

    /** How far behind its planned time an arrival may be begun before it counts as late. */
    static final Duration LATE = Duration.ofMillis(1);

    private final BenchDatabase database;
    private final TableName table;
    private final LatencyProbe probe;
    private final PoissonSchedule schedule;
    private final Duration warmup;
    private final Duration window;
    private final Clock clock;
    private final Histogram lag = LatencySummary.micros();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long arrivals;
    private volatile long late;
    private volatile long commits;

    ArrivalWriter(BenchDatabase database, TableName table, LatencyProbe probe, PoissonSchedule schedule, Duration warmup,
                  Duration window, Clock clock) {
        this.database = database;
        this.table = table;
        this.probe = probe;
        this.schedule = schedule;
        this.warmup = warmup;
        this.window = window;
        this.clock = clock;
        this.thread = new Thread(this::run, "leasebox-bench-arrivals");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Waits for the writer to write its last planned arrival; rethrows what made it fail. */
    void awaitEnd() throws InterruptedException {
        thread.join();
        if (failure.get() != null) {
            throw new IllegalStateException("the latency cell's writer failed: " + failure.get().getMessage(), failure.get());
        }
    }

    /** Arrivals planned in the measured window. */
    long arrivals() {
        return arrivals;
    }

    long late() {
        return late;
    }

    long commits() {
        return commits;
    }

    /** Planned time to the writer beginning the insert, measured arrivals. */
    LatencySummary lag() {
        return LatencySummary.of(lag);
    }

    private void run() {
        try (HikariDataSource pool = database.newPool(1); Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            long start = System.nanoTime();
            long measureFrom = start + warmup.toNanos();
            long end = measureFrom + window.toNanos();
            long planned = start + schedule.next();
            long seq = 0;
            while (planned < end && !stopped) {
                awaitTime(planned);
                long began = System.nanoTime();
                boolean measured = planned >= measureFrom;
                long first = seq + 1;
                while (planned <= began && planned < end) { // every arrival due by now goes into this transaction
                    seq++;
                    if (measured) {
                        count(began - planned);
                    }
                    planned = start + schedule.next();
                }
                List<Long> ids = database.insertReturningIds(c, table, first, seq, clock.instant());
                c.commit();
                long committed = System.nanoTime();
                probe.committed(ids, committed, measured);
                if (measured) {
                    commits++;
                }
            }
        } catch (SQLException | RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    private void count(long lagNanos) {
        arrivals++;
        lag.recordValue(LatencyProbe.micros(lagNanos));
        if (lagNanos > LATE.toNanos()) {
            late++;
        }
    }

    private void awaitTime(long planned) {
        for (long left = planned - System.nanoTime(); left > 0 && !stopped; left = planned - System.nanoTime()) {
            LockSupport.parkNanos(left); // an open-loop schedule: the planned time, not an event, is what is awaited
        }
    }

    /** Stops the writer early (a failed cell) and waits for it. */
    @Override
    public void close() {
        stopped = true;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
