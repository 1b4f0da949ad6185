package dev.leasebox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.TableName;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code baseline} pseudo-backend: what PostgreSQL does alone with the two bare statements a
 * queue needs, measured in the same process and run as the backends so that every CSV says how far
 * Leasebox is from it. A minimal table (id, status, claim_token, payload; one partial index;
 * baseline_create.sql) with the same history, backlog and payload as the backends' tables, VACUUM
 * ANALYZEd before the window; {@code workers} threads, each with its own pool, loop on one claim
 * statement ({@code UPDATE … WHERE id IN (SELECT … ORDER BY id LIMIT B FOR UPDATE SKIP LOCKED)
 * RETURNING}, one token per batch from a sequence) and one completion statement ({@code UPDATE …
 * WHERE id = ANY (?) AND claim_token = ?}). No lease expiry, no fence, no renewal, no drain engine,
 * no provider: a measurement, not a product path.
 */
final class BaselineCell {

    private final BenchDatabase database;
    private final int workers;
    private final int batch;
    private final BenchCell.Settings settings;
    private final PrintWriter progress;
    private final long backlog;
    private CpuMeter cpu = CpuMeter.NONE;

    BaselineCell(BenchDatabase database, int workers, int batch, BenchCell.Settings settings, long backlog,
                 PrintWriter progress) {
        this.database = database;
        this.workers = workers;
        this.batch = batch;
        this.settings = settings;
        this.backlog = backlog;
        this.progress = progress;
    }

    /** Measures the CPU of the cell's window with {@code meter} (default: not at all). */
    BaselineCell cpu(CpuMeter meter) {
        this.cpu = meter;
        return this;
    }

    BenchResult run() throws InterruptedException {
        TableName table = database.freshBaselineTable();
        BenchCell.Meters meters = new BenchCell.Meters(new CompletionLedger(), new LatencyRecorder(), new PhaseTimer(), cpu);
        long history = settings.historyRows();
        BacklogFeeder feeder = new BacklogFeeder((first, last) ->
                database.fillBaseline(table, "PENDING", history + first, history + last), meters.ledger(),
                Math.max(20_000, workers * batch * 20));
        String label = String.format(Locale.ROOT, "[%s W=%d B=%d%s]", BenchReport.BASELINE, workers, batch,
                backlog > 0 ? " backlog" : "");
        String claimSql = database.baselineStatement("baseline_claim.sql", table, batch);
        String completeSql = database.baselineStatement("baseline_complete.sql", table, batch);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        List<HikariDataSource> pools = new ArrayList<>();
        try {
            seed(table, history, feeder);
            for (int i = 1; i <= workers; i++) {
                HikariDataSource pool = database.newPool(1);
                pools.add(pool);
                Thread t = new Thread(() -> loop(pool, claimSql, completeSql, running, meters.ledger(), meters.latencies(),
                        meters.phases(), failure), "leasebox-bench-baseline-" + i);
                t.setDaemon(true);
                threads.add(t);
            }
            BenchCell.Window window = BenchCell.measure(label, () -> threads.forEach(Thread::start), feeder, meters,
                    backlog, settings, progress);
            double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            long rows = window.rows();
            feeder.close();
            stop(running, threads);
            if (failure.get() != null) {
                throw new IllegalStateException("the baseline's workers failed: " + failure.get().getMessage(), failure.get());
            }
            long delivered = database.baselineDelivered(table) - history;
            return meters.result(progress, new BenchCell.Cell(BenchReport.BASELINE, workers, batch, label,
                    "none: two bare statements", "baseline (minimal table, one partial index)",
                    backlog > 0 ? BenchResult.BACKLOG : BenchResult.FEEDER, false), window.nanos(), rows, delivered, load);
        } finally {
            feeder.close();
            stop(running, threads);
            pools.forEach(HikariDataSource::close);
            database.dropBaseline(table);
        }
    }

    /** The history as DELIVERED rows, then the backlog: seeded rows, or the feeder's first fill. */
    private void seed(TableName table, long history, BacklogFeeder feeder) {
        if (history > 0) {
            database.fillBaseline(table, "DELIVERED", 1, history);
        }
        if (backlog > 0) {
            database.fillBaseline(table, "PENDING", history + 1, history + backlog);
        } else {
            feeder.fillInitial();
        }
        database.analyze(table);
    }

    private static void stop(AtomicBoolean running, List<Thread> threads) throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(30_000);
        }
    }

    /** One worker: claim a batch, "emit" it (touch each payload), complete it by token; until told to stop. */
    private static void loop(HikariDataSource pool, String claimSql, String completeSql, AtomicBoolean running,
                             CompletionLedger ledger, LatencyRecorder latencies, PhaseTimer phases,
                             AtomicReference<Throwable> failure) {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(true);
            List<Long> ids = new ArrayList<>();
            long sink = 0;
            while (running.get()) {
                ids.clear();
                long token = 0;
                long started = System.nanoTime();
                try (PreparedStatement ps = c.prepareStatement(claimSql); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                        token = rs.getLong(2);
                        sink += rs.getBytes(3).length;
                    }
                }
                long claimed = System.nanoTime();
                latencies.record(claimed - started);
                phases.record("claim", claimed - started);
                if (ids.isEmpty()) {
                    Thread.sleep(1);
                    continue;
                }
                for (long id : ids) {
                    ledger.emitted(id);
                }
                try (PreparedStatement ps = c.prepareStatement(completeSql)) {
                    ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                    ps.setLong(2, token);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ledger.delivered(rs.getLong(1));
                        }
                    }
                }
                phases.record("complete", System.nanoTime() - claimed);
            }
            if (sink < 0) {
                throw new IllegalStateException("unreachable");
            }
        } catch (SQLException | RuntimeException e) {
            failure.compareAndSet(null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
