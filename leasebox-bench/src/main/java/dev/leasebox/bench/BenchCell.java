package dev.leasebox.bench;

import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.partition.PartitionedOutboxClaimStore;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.provider.ProviderOutcome;

import java.io.PrintWriter;
import dev.leasebox.lease.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Measures one cell: {@code workers} drains of one backend at one batch size over a fresh table,
 * each drain with its own connection pool and its own lease client (as on separate nodes), a
 * provider that does nothing, a warm-up, then the steady window. Afterwards it checks that no entry
 * was finalized twice and that the table's DELIVERED rows equal the completions the workers saw.
 */
final class BenchCell {

    /** How one cell runs. */
    record Settings(Duration warmup, Duration window, Duration leaseTtl, int candidateSpread,
                    ReleasingLeaseManager.Mode release, boolean durableClaimRecords, ClaimMode claimMode,
                    ReleaseAfterCompletion releaseAfterCompletion, long historyRows, boolean partition,
                    ClaimMode partitionClaims, int candidateOverAsk, boolean wakeUps) {

        Settings(Duration warmup, Duration window, Duration leaseTtl, int candidateSpread,
                 ReleasingLeaseManager.Mode release, boolean durableClaimRecords) {
            this(warmup, window, leaseTtl, candidateSpread, release, durableClaimRecords, ClaimMode.RECORDED,
                    ReleaseAfterCompletion.ALWAYS, 0, false, ClaimMode.LEAN, 2, false);
        }

        String variant() {
            if (partition) {
                return "partition leases (" + LeaseboxSchema.DEFAULT_SLOT_COUNT + " slots), "
                        + partitionClaims.name().toLowerCase(Locale.ROOT) + " claims";
            }
            return "claim-mode=" + claimMode.name().toLowerCase(Locale.ROOT)
                    + " release-after-completion=" + releaseAfterCompletion.name().toLowerCase(Locale.ROOT).replace('_', '-')
                    + " release=" + release.name().toLowerCase(Locale.ROOT)
                    + (durableClaimRecords ? " durable-claims" : " claims-synchronous_commit=off")
                    + " over-ask=" + candidateOverAsk;
        }

        /** The same settings with row or partition leases. */
        Settings withPartition(boolean partitionLeases) {
            return new Settings(warmup, window, leaseTtl, candidateSpread, release, durableClaimRecords, claimMode,
                    releaseAfterCompletion, historyRows, partitionLeases, partitionClaims, candidateOverAsk, wakeUps);
        }

        /** The same settings with the workers' wake-ups {@code on} or off. */
        Settings withWakeUps(boolean on) {
            return new Settings(warmup, window, leaseTtl, candidateSpread, release, durableClaimRecords, claimMode,
                    releaseAfterCompletion, historyRows, partition, partitionClaims, candidateOverAsk, on);
        }
    }

    /** How long a partition cell waits for its workers to share the slots before the warm-up starts. */
    private static final Duration BALANCE_TIMEOUT = Duration.ofSeconds(30);

    private static final int CONNECTIONS_PER_WORKER = 3; // the claim loop, the renewal thread, one spare (slot keeper)

    private final BenchDatabase database;
    private final Optional<BenchCoordinator> coordinator;
    private final String backend;
    private final int workers;
    private final int batch;
    private final Settings settings;
    private final PrintWriter progress;
    private long backlog;
    private CpuMeter cpu = CpuMeter.NONE;
    private Arrivals arrivals;

    /**
     * A latency cell's open-loop load: {@code rate} rows a second (a Poisson process seeded with {@code seed})
     * through the warm-up and a measured {@code window}.
     *
     * @param load   {@link LatencyFigures#IDLE} or {@link LatencyFigures#LOADED}
     * @param source where the rate came from, for the report
     */
    record Arrivals(String load, double rate, String source, Duration window, long seed) {
    }

    BenchCell(BenchDatabase database, Optional<BenchCoordinator> coordinator, String backend, int workers, int batch,
              Settings settings, PrintWriter progress) {
        this.database = database;
        this.coordinator = coordinator;
        this.backend = backend;
        this.workers = workers;
        this.batch = batch;
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Drain-a-backlog mode: the table is seeded with {@code rows} PENDING rows (after its history) and
     * nothing is inserted while the workers drain it; the window runs from the workers' start until every
     * seeded row is finalized. 0 (the default): steady state, a feeder tops the backlog up through a window
     * of fixed length after a warm-up.
     */
    BenchCell backlog(long rows) {
        this.backlog = rows;
        return this;
    }

    /** Measures the CPU of the cell's window with {@code meter} (default: not at all). */
    BenchCell cpu(CpuMeter meter) {
        this.cpu = meter;
        return this;
    }

    /**
     * Latency mode: no backlog; a writer of its own inserts rows at the planned times of {@code load}, and the
     * cell reports commit-to-emission and commit-to-finalized latencies besides its rows a second.
     */
    BenchCell arrivals(Arrivals load) {
        this.arrivals = load;
        return this;
    }

    /** How long a latency cell waits, after its last arrival, for the rows of its window to be finalized. */
    private Duration finalizeTimeout() {
        return settings.leaseTtl().plusSeconds(10);
    }

    BenchResult run() throws InterruptedException {
        Clock clock = MonotonicClock.system();
        TableName table = database.freshTable(settings.partition(), settings.wakeUps());
        Meters meters = new Meters(new CompletionLedger(), new LatencyRecorder(), new PhaseTimer(), cpu);
        LatencyProbe probe = new LatencyProbe();
        BacklogFeeder feeder = new BacklogFeeder(database, table, meters.ledger(), Math.max(20_000, workers * batch * 20), clock);
        List<AutoCloseable> resources = new ArrayList<>();
        List<OutboxDrain> drains = new ArrayList<>();
        String namespace = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        String name = label();
        String label = String.format(Locale.ROOT, "[%s W=%d B=%d%s]", name, workers, batch, arrivals != null
                ? String.format(Locale.ROOT, " latency %s %.1f rows/s, wake-ups %s", arrivals.load(), arrivals.rate(),
                settings.wakeUps() ? "on" : "off") : backlog > 0 ? " backlog" : "");
        List<PartitionedOutboxClaimStore> partitioned = new ArrayList<>();
        try {
            seed(table, feeder, clock);
            for (int i = 1; i <= workers; i++) {
                // with wake-ups on, PostgreSQL's commit listener holds one connection more
                HikariDataSource pool = database.newPool(CONNECTIONS_PER_WORKER + (settings.wakeUps() ? 1 : 0));
                resources.add(pool);
                Leasebox worker = worker(i, pool, table, clock, namespace, meters, arrivals == null
                        ? meters.ledger() : DrainListener.all(meters.ledger(), probe), resources);
                resources.add(worker); // closed before its lease manager and its pool
                drains.add(worker.engine());
                if (worker.claimStore() instanceof PartitionedOutboxClaimStore slots) {
                    partitioned.add(slots);
                }
            }
            awaitBalanced(partitioned, label);
            LatencyFigures[] latency = new LatencyFigures[1];
            Window window = arrivals == null ? measure(label, drains, feeder, meters)
                    : measureArrivals(label, drains, table, probe, meters, clock, latency);
            double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            feeder.close();
            drains.forEach(OutboxDrain::close);
            long delivered = database.delivered(table);
            String variant = coordinator.isPresent() ? settings.variant() : "database backend";
            BenchResult result = meters.result(progress, new Cell(name, workers, batch, label,
                    coordinator.map(BenchCoordinator::description).orElse("database: FOR UPDATE SKIP LOCKED"),
                    arrivals == null ? variant : variant + "; Poisson arrivals " + arrivals.source(),
                    backlog > 0 ? BenchResult.BACKLOG : BenchResult.FEEDER, settings.wakeUps()), window.nanos(),
                    window.rows(), delivered, load);
            return arrivals == null ? result : result.with(latency[0]);
        } finally {
            feeder.close();
            drains.forEach(OutboxDrain::close);
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    // closing after the measurement: nothing left to report
                }
            }
            database.drop(table);
        }
    }

    /** What a cell measures with: completions, claim latencies, time per call, CPU per process. */
    record Meters(CompletionLedger ledger, LatencyRecorder latencies, PhaseTimer phases, CpuMeter cpu) {

        /** The window opens: claim latencies, phase times and CPU are counted from here. */
        void start() {
            latencies.start();
            phases.start();
            cpu.start();
        }

        void stop() {
            cpu.stop();
            latencies.stop();
            phases.stop();
        }

        /** The cell's result from these meters, printed as one progress line first. */
        BenchResult result(PrintWriter progress, Cell cell, long windowNanos, long rows, long delivered, double load) {
            long[] sorted = latencies.sorted();
            CpuFigures figures = cpu.figures(rows);
            progress.printf(Locale.ROOT, "%s %,.0f rows/s, claim p50 %.2f ms, p99 %.2f ms, load %.2f; CPU s per 10k rows: "
                            + "database %s (whole server %s), jvm %s, coordinator %s; mean per call: %s%n",
                    cell.label(), Percentiles.rate(rows, windowNanos), Percentiles.millis(sorted, 50),
                    Percentiles.millis(sorted, 99), load, CpuFigures.shown(figures.databasePer10k()),
                    CpuFigures.shown(figures.serverPer10k()),
                    CpuFigures.shown(figures.jvmPer10k()), CpuFigures.shown(figures.coordinatorPer10k()), phases.summary());
            progress.flush();
            return new BenchResult(cell.backend(), cell.workers(), cell.batch(), windowNanos / 1e9, rows,
                    Percentiles.millis(sorted, 50), Percentiles.millis(sorted, 90), Percentiles.millis(sorted, 99),
                    sorted.length, delivered, ledger.completedTotal(), ledger.finalizedTwice().size(),
                    ledger.emittedTwice().size(), ledger.refusedTotal(), cell.coordinator(), cell.variant(),
                    phases.summary(), load < 0 ? Double.NaN : load).in(cell.mode(), 1).with(figures, cell.wakeUps());
        }
    }

    /** What names a cell's result: backend, size, the progress label, coordinator, variant, mode and wake-ups. */
    record Cell(String backend, int workers, int batch, String label, String coordinator, String variant, String mode,
                boolean wakeUps) {
    }

    /** The measured window: the completions counted before it and at its end, and its length. */
    record Window(long firstCompleted, long lastCompleted, long nanos) {

        /** Rows finalized in the window. */
        long rows() {
            return lastCompleted - firstCompleted;
        }
    }

    /** The table's history, then its backlog: seeded rows, or the feeder's first fill. */
    private void seed(TableName table, BacklogFeeder feeder, Clock clock) {
        database.fillHistory(table, settings.historyRows(), clock.instant());
        if (arrivals != null) {
            database.analyze(table); // the writer brings every row
            return;
        }
        if (backlog > 0) {
            database.fill(table, 1, backlog, clock.instant());
        } else {
            feeder.fillInitial();
        }
        database.analyze(table);
    }

    /**
     * One worker, built as {@code leasebox worker} builds it, through the tooling builder: the table, the
     * cell's backend (none: the database backend), its granularity and claim settings, and the bench's meters
     * around the claim store and, under row leases, the table store. The lease manager it opens is added to
     * {@code resources}, to be closed after the worker.
     */
    private Leasebox worker(int worker, HikariDataSource pool, TableName table, Clock clock, String namespace,
                            Meters meters, DrainListener listener, List<AutoCloseable> resources) {
        LeaseboxToolBuilder builder = LeaseboxToolBuilder.drain(pool).withoutClaimStyleRegistry()
                .decorateClaimStore(store -> new TimedClaimStore(store, meters.latencies(), meters.phases()))
                .configureStore(store -> {
                    if (!settings.durableClaimRecords()) {
                        store.claimRecordsWithoutWalFlush();
                    }
                });
        builder.table(table).clock(clock).provider(envelope -> ProviderOutcome.delivered()).listener(listener)
                .options(DrainOptions.builder().owner("bench-" + backend + "-" + worker).batchSize(batch)
                        .leaseDuration(settings.leaseTtl()).build());
        WakeUpSwitch.apply(builder, settings.wakeUps());
        if (settings.partition()) {
            builder.granularity(Granularity.PARTITION).claimMode(settings.partitionClaims());
        }
        if (coordinator.isPresent()) {
            BenchCoordinator c = coordinator.get();
            LeaseManager manager = LeaseGrouping.open(backend,
                    new LeaseBackendSettings(c.address(), namespace, settings.leaseTtl(), c.clientOptions()), clock);
            if (!settings.partition()) {
                manager = new ReleasingLeaseManager(manager, settings.release(), meters.phases());
                builder.decorateFencedStore(store -> new TimedFencedStore(store, meters.phases()))
                        .rowGrouping(LeaseGrouping.forBackend(backend, c.clientOptions()))
                        .claimMode(settings.claimMode()).releaseAfterCompletion(settings.releaseAfterCompletion())
                        .releaseInBackground(settings.release() == ReleasingLeaseManager.Mode.ASYNC);
            }
            resources.add(manager);
            builder.leases(manager).coordinator(backend, c.address(), namespace)
                    .candidateWindow(settings.candidateOverAsk(), settings.candidateSpread());
        }
        return builder.build();
    }

    private Window measure(String label, List<OutboxDrain> drains, BacklogFeeder feeder, Meters meters)
            throws InterruptedException {
        return measure(label, () -> drains.forEach(OutboxDrain::start), feeder, meters, backlog, settings, progress);
    }

    /**
     * Starts the workers and measures, for any cell: the backlog drained to the end from the start, or, with the
     * feeder, a warm-up and then a window of fixed length.
     */
    static Window measure(String label, Runnable startWorkers, BacklogFeeder feeder, Meters meters, long backlog,
                          Settings settings, PrintWriter progress) throws InterruptedException {
        long firstCompleted;
        long windowStart;
        if (backlog > 0) {
            firstCompleted = 0;
            meters.start();
            windowStart = System.nanoTime();
            startWorkers.run();
            drainToTheEnd(label + " draining " + backlog + " rows", meters.ledger(), backlog, progress);
        } else {
            feeder.start();
            startWorkers.run();
            pace(label + " warm-up", settings.warmup(), meters.ledger(), progress);
            firstCompleted = meters.ledger().completedTotal();
            windowStart = System.nanoTime();
            meters.start();
            pace(label + " measuring", settings.window(), meters.ledger(), progress);
        }
        meters.stop();
        return new Window(firstCompleted, meters.ledger().completedTotal(), System.nanoTime() - windowStart);
    }

    /**
     * A latency cell's measurement: the workers start on an empty backlog, the writer follows its schedule
     * through the warm-up and the window, and the cell then waits for the window's rows to be finalized (at
     * most {@link #finalizeTimeout()}), so that the slowest rows count too. Rows a second, claim times and CPU
     * cover the window alone. The figures go to {@code latency[0]}.
     */
    private Window measureArrivals(String label, List<OutboxDrain> drains, TableName table, LatencyProbe probe,
                                   Meters meters, Clock clock, LatencyFigures[] latency) throws InterruptedException {
        drains.forEach(OutboxDrain::start);
        try (ArrivalWriter writer = new ArrivalWriter(database, table, probe, new PoissonSchedule(arrivals.rate(),
                arrivals.seed()), settings.warmup(), arrivals.window(), clock)) {
            writer.start();
            pace(label + " warm-up", settings.warmup(), meters.ledger(), progress);
            long firstCompleted = meters.ledger().completedTotal();
            long windowStart = System.nanoTime();
            meters.start();
            pace(label + " measuring", arrivals.window(), meters.ledger(), progress);
            meters.stop();
            Window window = new Window(firstCompleted, meters.ledger().completedTotal(), System.nanoTime() - windowStart);
            writer.awaitEnd();
            long unfinished = probe.awaitFinalized(finalizeTimeout().toNanos());
            latency[0] = new LatencyFigures(arrivals.load(), arrivals.rate(), arrivals.source(), settings.wakeUps(),
                    writer.arrivals(), writer.late(), writer.commits(), unfinished, probe.emission(), probe.finalized(),
                    writer.lag());
            LatencySummary f = latency[0].finalized();
            progress.printf(Locale.ROOT, "%s %,d arrivals (%,d late), commit to finalized p50 %.2f ms, p99 %.2f ms, "
                    + "p99.9 %.2f ms, max %.2f ms; %d unfinished%n", label, writer.arrivals(), writer.late(), f.p50Ms(),
                    f.p99Ms(), f.p999Ms(), f.maxMs(), unfinished);
            progress.flush();
            return window;
        }
    }

    /** The backend's name in the report: {@code redis}, or {@code redis/partition} with partition leases. */
    String label() {
        return settings.partition()
                ? backend + "/partition" + (settings.partitionClaims() == ClaimMode.LEAN ? "-lean" : "") : backend;
    }

    /** Ticks the workers' slot keepers until every slot is held and every worker holds some (partition cells). */
    private void awaitBalanced(List<PartitionedOutboxClaimStore> stores, String label) {
        if (stores.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + BALANCE_TIMEOUT.toNanos();
        int slotCount = stores.get(0).keeper().slotCount();
        while (System.nanoTime() < deadline) {
            stores.forEach(s -> s.keeper().tick());
            int held = stores.stream().mapToInt(s -> s.keeper().heldSlots().size()).sum();
            boolean everyoneHasSome = stores.stream().allMatch(s -> !s.keeper().heldSlots().isEmpty());
            if (held == slotCount && (everyoneHasSome || stores.size() > slotCount)) {
                progress.printf("%s slots balanced: %s%n", label,
                        stores.stream().map(s -> Integer.toString(s.keeper().heldSlots().size())).toList());
                progress.flush();
                return;
            }
        }
        progress.printf("%s slots not balanced after %s; measuring anyway%n", label, BALANCE_TIMEOUT);
        progress.flush();
    }

    /** How long a backlog may take to drain before the cell gives up on it. */
    static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

    /**
     * Waits until {@code ledger} counts {@code rows} completions (or {@link #DRAIN_TIMEOUT}), printing a progress
     * line every two seconds; the backlog modes of the backends and of the baseline end their windows here.
     */
    static void drainToTheEnd(String what, CompletionLedger ledger, long rows, PrintWriter progress)
            throws InterruptedException {
        long start = System.nanoTime();
        long nextLine = start + TimeUnit.SECONDS.toNanos(2);
        long deadline = start + DRAIN_TIMEOUT.toNanos();
        while (ledger.completedTotal() < rows) {
            long now = System.nanoTime();
            if (now >= deadline) {
                progress.printf(Locale.ROOT, "%s: %,d of %,d rows after %s; stopping%n", what, ledger.completedTotal(), rows,
                        DRAIN_TIMEOUT);
                progress.flush();
                return;
            }
            if (now >= nextLine) {
                double seconds = (now - start) / 1e9;
                progress.printf(Locale.ROOT, "%s %5.1f s: %,d rows (%,.0f rows/s)%n", what, seconds, ledger.completedTotal(),
                        ledger.completedTotal() / seconds);
                progress.flush();
                nextLine += TimeUnit.SECONDS.toNanos(2);
            }
            Thread.sleep(1);
        }
    }

    /** Waits {@code length}, printing a progress line every two seconds (whole lines: library logs interleave). */
    static void pace(String what, Duration length, CompletionLedger ledger, PrintWriter progress) throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        long start = System.nanoTime();
        long end = start + length.toNanos();
        long startRows = ledger.completedTotal();
        while (true) {
            long now = System.nanoTime();
            if (now >= end) {
                return;
            }
            never.await(Math.min(end - now, TimeUnit.SECONDS.toNanos(2)), TimeUnit.NANOSECONDS); // the progress line's pace
            double seconds = (System.nanoTime() - start) / 1e9;
            long rows = ledger.completedTotal() - startRows;
            progress.printf(Locale.ROOT, "%s %4.1f/%d s: %,d rows (%,.0f rows/s)%n", what, seconds, length.toSeconds(),
                    rows, rows / Math.max(seconds, 1e-9));
            progress.flush();
        }
    }
}
