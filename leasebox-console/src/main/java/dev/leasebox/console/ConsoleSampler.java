package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxTableStatus;
import dev.leasebox.jdbc.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Reads the outbox table every {@code interval} on a daemon thread and keeps the last {@code keep}
 * samples in memory: the trend, throughput and loss charts are drawn from them, so they start empty
 * when the console starts and cover {@code interval x keep} at most. Reads only; one connection at a
 * time. Each sample also takes the count of claims taken over: the table's (V8, decision 0046), or with
 * {@link #takeoversFrom} the workers' own.
 */
public final class ConsoleSampler implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConsoleSampler.class);

    private final OutboxTableStatus readings;
    private final ClaimTracker claims = new ClaimTracker();
    private final Duration interval;
    private final int keep;
    private final Clock clock;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private final ScheduledExecutorService timer;
    private long previousNanos;
    private volatile String problem;
    private volatile LongSupplier takeovers;
    private boolean started;

    private ConsoleSampler(DataSource dataSource, TableName table, Duration interval, int keep, Clock clock) {
        this.readings = new OutboxTableStatus(Objects.requireNonNull(dataSource, "dataSource"), Objects.requireNonNull(table, "table"));
        if (interval.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("the console's sampling interval must be at least 100ms, was " + interval);
        }
        if (keep < 2) {
            throw new IllegalArgumentException("the console must keep at least 2 samples, was " + keep);
        }
        this.interval = interval;
        this.keep = keep;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "leasebox-console-sampler");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts sampling {@code table} every {@code interval}, keeping the newest {@code keep} samples. */
    public static ConsoleSampler start(DataSource dataSource, TableName table, Duration interval, int keep) {
        ConsoleSampler sampler = create(dataSource, table, interval, keep);
        sampler.startSampling();
        return sampler;
    }

    /** A sampler that reads nothing until {@link #startSampling()} (an application starts it once its tables exist). */
    public static ConsoleSampler create(DataSource dataSource, TableName table, Duration interval, int keep) {
        return new ConsoleSampler(dataSource, table, interval, keep, Clock.systemUTC());
    }

    /**
     * Shows on the page, beside what the table says, the claims the workers took over from claims that had
     * expired unfinished, as the workers count them where they happen: {@code takenOverTotal} is read at
     * every sample, e.g. {@code metrics::takenOverTotal} of the {@link dev.leasebox.metrics.DrainMetrics} of
     * the drains this process runs (summed, for several). Without it the console reads the count the workers
     * add to the table (V8, decision 0046), which covers every worker of the table and lags theirs by a
     * heartbeat; on a table without V8 the page names the meter that holds the count instead. Sampling the
     * rows cannot give it: a lapsed claim is on its row only between its expiry and the next claim, often
     * less than a sampling interval (decision 0040).
     */
    public ConsoleSampler takeoversFrom(LongSupplier takenOverTotal) {
        this.takeovers = Objects.requireNonNull(takenOverTotal, "takenOverTotal");
        return this;
    }

    /** Reads a sample now and then every interval, on the sampler's thread; a second call does nothing. */
    public synchronized void startSampling() {
        if (!started) {
            started = true;
            timer.scheduleWithFixedDelay(this::sampleQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Reads a sample now (after a redrive, so the page shows it at once), on the caller's thread. */
    public void sampleNow() {
        sampleQuietly();
    }

    private void sampleQuietly() {
        try {
            sample();
            problem = null;
        } catch (SQLException | RuntimeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().replace('\n', ' ');
            if (!why.equals(problem)) {
                log.warn("leasebox console: cannot read {}: {}", readings.table(), why);
            }
            problem = why;
        }
    }

    private synchronized void sample() throws SQLException {
        Instant now = clock.instant();
        long nanos = System.nanoTime();
        Map<String, Long> counts = new LinkedHashMap<>();
        for (dev.leasebox.outbox.EmissionStatus s : dev.leasebox.outbox.EmissionStatus.values()) {
            counts.put(s.name(), 0L);
        }
        counts.putAll(readings.countsByStatus());
        ClaimTracker.Tally tally = claims.observe(readings.openClaims(now));
        Sample last = samples.peekLast();
        double delivered = 0;
        double deadLettered = 0;
        if (last != null) {
            double seconds = Math.max(1e-3, (nanos - previousNanos) / 1e9);
            // a purge lowers the counts: growth below zero is shown as none
            delivered = Math.max(0, counts.get("DELIVERED") - last.count("DELIVERED")) / seconds;
            deadLettered = Math.max(0, counts.get("DEAD_LETTERED") - last.count("DEAD_LETTERED")) / seconds;
        }
        LongSupplier takenOver = takeovers;
        Sample sample = new Sample(now, counts, readings.oldestPendingCreatedAt(), readings.claimsByOwner(now),
                readings.slotsByHolder(now), readings.recentDeadLetters(), delivered, deadLettered, tally,
                takenOver == null ? readings.takenOverTotal() : OptionalLong.of(takenOver.getAsLong()), takenOver == null);
        previousNanos = nanos;
        samples.addLast(sample);
        while (samples.size() > keep) {
            samples.removeFirst();
        }
    }

    /** The newest sample, if one was read. */
    synchronized Optional<Sample> latest() {
        return Optional.ofNullable(samples.peekLast());
    }

    /** The kept samples, oldest first. */
    synchronized List<Sample> history() {
        return List.copyOf(samples);
    }

    /** Why the last read failed, while it does. */
    public Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    public Duration interval() {
        return interval;
    }

    public TableName table() {
        return readings.table();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
