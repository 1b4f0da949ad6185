package dev.leasebox.bench;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The throughput measurement of {@code leasebox bench}: every cell (workers x batch), in every mode, for every
 * backend, {@code --rounds} times with the backends interleaved; then the table, the CSV and, for a matrix or
 * when asked, the chart. The CSV is rewritten after every cell, so that a failure later keeps what was measured.
 */
final class ThroughputBench {

    private final BenchCommand options;
    private final BenchDatabase database;
    private final Map<String, BenchCoordinator> coordinators;
    private final PrintWriter out;
    private final PrintWriter err;
    private CpuSources cpu;

    ThroughputBench(BenchCommand options, BenchDatabase database, Map<String, BenchCoordinator> coordinators,
                    PrintWriter out, PrintWriter err) {
        this.options = options;
        this.database = database;
        this.coordinators = coordinators;
        this.out = out;
        this.err = err;
    }

    /** Measures every cell; 0 when the checks held in every one, 1 otherwise. */
    int run() throws InterruptedException, IOException {
        List<int[]> cells = cells();
        List<String> measuredModes = options.modes();
        BenchReport report = new BenchReport();
        Instant started = Instant.now();
        try (CpuSources sources = CpuSources.find(database)) {
            cpu = sources;
            printConditions(cells, measuredModes);
            if (options.warmJvm) {
                warmJvm(cells.get(0));
            }
            for (int round = 1; round <= options.rounds; round++) {
                for (int[] cell : cells) {
                    measure(report, cell, measuredModes, round);
                }
            }
            if (options.latency) {
                new LatencyBench(options, database, coordinators, cpu, err).run(report, settings(
                        new int[]{options.workers, options.batch}), measuredModes.get(0));
            }
        }
        return writeReport(report, started);
    }

    /** {@code {workers, batch}} pairs: the 3 x 3 matrix, or the one cell of {@code --workers} and {@code --batch}. */
    private List<int[]> cells() {
        List<int[]> cells = new ArrayList<>();
        if (options.matrix) {
            for (int w : new int[]{1, 4, 8}) {
                for (int b : new int[]{1, 10, 100}) {
                    cells.add(new int[]{w, b});
                }
            }
        } else {
            cells.add(new int[]{options.workers, options.batch});
        }
        return cells;
    }

    private void printConditions(List<int[]> cells, List<String> measuredModes) {
        out.printf("leasebox bench: %s; %d cell(s) x %d backend(s) x %s x %d round(s), %d s warm-up + %d s window each "
                        + "(backlog mode: %d rows drained to the end), lease %d s, schema %s, %d CPUs, load average %s; "
                        + "external backends: claim mode %s, release after completion %s, release %s, claim records %s; "
                        + "payload %d bytes, outbox fillfactor %s; tables start with %d delivered rows and are %s "
                        + "before each window%s%n",
                String.join(",", options.backends), cells.size(), options.backends.size(), String.join("+", measuredModes),
                options.rounds, options.warmup, options.seconds, options.backlog, options.leaseTtlSeconds,
                database.schema(), Runtime.getRuntime().availableProcessors(), BenchCommand.loadAverage(),
                options.rowClaimMode().name().toLowerCase(java.util.Locale.ROOT), options.releaseAfterCompletion, options.release, options.claimRecords, options.payload,
                options.fillfactor == 0 ? "as migrated" : Integer.toString(options.fillfactor), options.history,
                database.kind() == dev.leasebox.jdbc.DatabaseKind.MARIADB ? "ANALYZEd (MariaDB)" : "VACUUM ANALYZEd",
                options.warmJvm ? "; one unreported cell per backend warms the JVM first" : "");
        out.printf("CPU per 10,000 rows finalized, per cell: %s; the jvm column includes in-process coordinators%n",
                cpu.meter(java.util.Optional.empty()).describe());
        if (options.latency) {
            out.printf(java.util.Locale.ROOT, "Latency cells: W=%d B=%d, wake-ups %s, %.1f rows/s (idle) and %s, %d s warm-up "
                            + "+ %d s window each, Poisson arrivals from a writer of their own%n", options.workers,
                    options.batch, options.wakeUps, options.idleRate, options.rate.equals("half")
                            ? "half the throughput measured" : options.rate + " rows/s", options.warmup, options.latencySeconds);
        }
        out.flush();
    }

    /** One cell of one round: every mode, every backend, the round deciding which backend goes first. */
    private void measure(BenchReport report, int[] cell, List<String> measuredModes, int round)
            throws InterruptedException, IOException {
        BenchCell.Settings settings = settings(cell);
        List<String> backends = options.backends;
        for (String mode : measuredModes) {
            long rows = mode.equals(BenchResult.BACKLOG) ? options.backlog : 0;
            if (options.partition()) {
                report.add(new BenchCell(database, Optional.empty(), BenchReport.DATABASE, cell[0], cell[1], settings, err)
                        .backlog(rows).cpu(cpu.meter(Optional.empty())).run().in(mode, round));
            }
            for (int k = 0; k < backends.size(); k++) {
                String backend = backends.get((k + round - 1) % backends.size()); // interleaved: each round starts elsewhere
                Optional<BenchCoordinator> coordinator = Optional.ofNullable(coordinators.get(backend));
                BenchResult result = backend.equals(BenchReport.BASELINE)
                        ? new BaselineCell(database, cell[0], cell[1], settings, rows, err).cpu(cpu.meter(coordinator)).run()
                        : new BenchCell(database, coordinator, backend, cell[0], cell[1],
                                settings.withPartition(options.partition()), err).backlog(rows).cpu(cpu.meter(coordinator)).run();
                report.add(result.in(mode, round));
                Files.writeString(options.csv, report.csv(), StandardCharsets.UTF_8); // a failure later keeps what was measured
            }
        }
    }

    /** The settings of a cell of {@code {workers, batch}}, the workers' wake-ups as the first of --wake-ups. */
    BenchCell.Settings settings(int[] cell) {
        int spread = options.candidateSpread > 0 ? options.candidateSpread : cell[0] + 1;
        return new BenchCell.Settings(Duration.ofSeconds(options.warmup),
                Duration.ofSeconds(options.seconds), Duration.ofSeconds(options.leaseTtlSeconds), spread,
                options.releaseMode(), options.durableClaimRecords(), options.rowClaimMode(),
                ReleaseAfterCompletion.parse(options.releaseAfterCompletion), options.history, false,
                options.partitionClaimMode(), options.candidateOverAsk, options.wakeUps.get(0));
    }

    /** One unreported feeder cell per backend, its window as long as the warm-up, to compile the paths first. */
    private void warmJvm(int[] cell) throws InterruptedException {
        int warmup = options.warmup;
        BenchCell.Settings settings = new BenchCell.Settings(Duration.ofSeconds(Math.min(warmup, 2)),
                Duration.ofSeconds(Math.max(warmup, 1)), Duration.ofSeconds(options.leaseTtlSeconds),
                options.candidateSpread > 0 ? options.candidateSpread : cell[0] + 1, options.releaseMode(),
                options.durableClaimRecords(), options.rowClaimMode(),
                ReleaseAfterCompletion.parse(options.releaseAfterCompletion), Math.min(options.history, 1_000),
                options.partition(), options.partitionClaimMode(), options.candidateOverAsk, options.wakeUps.get(0));
        for (String backend : options.backends) {
            err.println("warming the JVM with " + backend + " (not reported)");
            err.flush();
            if (backend.equals(BenchReport.BASELINE)) {
                new BaselineCell(database, cell[0], cell[1], settings, 0, err).run();
            } else {
                new BenchCell(database, Optional.ofNullable(coordinators.get(backend)), backend, cell[0], cell[1], settings,
                        err).run();
            }
        }
    }

    /** The table, the CSV and the chart; 0 when the checks held in every cell. */
    private int writeReport(BenchReport report, Instant started) throws IOException {
        out.println();
        out.print(report.table());
        Files.writeString(options.csv, report.csv(), StandardCharsets.UTF_8);
        out.println("CSV written to " + options.csv.toAbsolutePath());
        if (options.matrix || options.chart != null || options.latency) {
            Path html = options.chart != null ? options.chart : BenchCommand.htmlNextTo(options.csv);
            Files.writeString(html, BenchChart.html(report, "leasebox bench, " + started + ", "
                    + Runtime.getRuntime().availableProcessors() + " CPUs, " + options.seconds + " s windows"),
                    StandardCharsets.UTF_8);
            out.println("Chart written to " + html.toAbsolutePath());
        }
        if (report.checksHeld()) {
            out.println("Checks held in every cell: no entry finalized or emitted twice, no completion refused; "
                    + "DELIVERED rows == accepted completions.");
            return 0;
        }
        out.println("CHECK FAILED:");
        report.results().stream().filter(r -> !r.checksHeld())
                .forEach(r -> out.println("  " + r.backend() + " W=" + r.workers() + " B=" + r.batch() + ": " + r.checkFailures()));
        return 1;
    }
}
