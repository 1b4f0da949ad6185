package dev.leasebox.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The latency cells of {@code leasebox bench --latency}, after the throughput cells of the same run: for
 * every wake-up setting and every backend (the baseline has no drain to time), an idle cell at
 * {@code --idle-rate} and a loaded one at {@code --rate}, by default half the rows a second that backend's
 * throughput cell just measured at the same workers and batch. Every backend gets the same planned
 * arrivals (the schedules are seeded per load). The CSV is rewritten after every cell.
 */
final class LatencyBench {

    /** The seeds of the idle and the loaded schedules: the same arrivals for every backend of a run. */
    static final long IDLE_SEED = 1;
    static final long LOADED_SEED = 2;

    private final BenchCommand options;
    private final BenchDatabase database;
    private final Map<String, BenchCoordinator> coordinators;
    private final CpuSources cpu;
    private final PrintWriter err;

    LatencyBench(BenchCommand options, BenchDatabase database, Map<String, BenchCoordinator> coordinators, CpuSources cpu,
                 PrintWriter err) {
        this.options = options;
        this.database = database;
        this.coordinators = coordinators;
        this.cpu = cpu;
        this.err = err;
    }

    /** Measures every latency cell into {@code report}; {@code mode} names the throughput cells "half" is half of. */
    void run(BenchReport report, BenchCell.Settings settings, String mode) throws InterruptedException, IOException {
        Duration window = Duration.ofSeconds(options.latencySeconds);
        for (boolean wakeUps : options.wakeUps) {
            for (String backend : options.backends) {
                if (backend.equals(BenchReport.BASELINE)) {
                    continue;
                }
                BenchCell.Settings cellSettings = settings.withPartition(options.partition()).withWakeUps(wakeUps);
                Optional<BenchCoordinator> coordinator = Optional.ofNullable(coordinators.get(backend));
                String label = cell(backend, coordinator, cellSettings).label();
                BenchCell.Arrivals idle = new BenchCell.Arrivals(LatencyFigures.IDLE, options.idleRate,
                        String.format(Locale.ROOT, "%.1f rows/s (--idle-rate)", options.idleRate), window, IDLE_SEED);
                BenchCell.Arrivals loaded = loaded(report, label, mode, window);
                for (BenchCell.Arrivals load : List.of(idle, loaded)) {
                    report.add(cell(backend, coordinator, cellSettings).arrivals(load).cpu(cpu.meter(coordinator)).run());
                    Files.writeString(options.csv, report.csv(), StandardCharsets.UTF_8);
                }
            }
        }
    }

    private BenchCell cell(String backend, Optional<BenchCoordinator> coordinator, BenchCell.Settings settings) {
        return new BenchCell(database, coordinator, backend, options.workers, options.batch, settings, err);
    }

    /** The loaded cell's arrivals: --rate, or half the median rows/s of the backend's throughput cells in this run. */
    private BenchCell.Arrivals loaded(BenchReport report, String label, String mode, Duration window) {
        double given = options.givenRate();
        if (!Double.isNaN(given)) {
            return new BenchCell.Arrivals(LatencyFigures.LOADED, given,
                    String.format(Locale.ROOT, "%.1f rows/s (--rate)", given), window, LOADED_SEED);
        }
        double measured = halfOf(report, label, options.workers, options.batch, mode);
        if (!(measured > 0)) {
            throw new IllegalStateException("--rate half: no " + mode + " throughput of " + label + " at W="
                    + options.workers + " B=" + options.batch + " in this run to take half of; give --rate ROWS_PER_S");
        }
        return new BenchCell.Arrivals(LatencyFigures.LOADED, measured / 2, String.format(Locale.ROOT,
                "%.1f rows/s (half of the %.0f rows/s measured)", measured / 2, measured), window, LOADED_SEED);
    }

    /** The median rows/s of {@code backend}'s throughput cells at W and B in {@code mode}; NaN when none ran. */
    static double halfOf(BenchReport report, String backend, int workers, int batch, String mode) {
        return BenchReport.median(report.results().stream().filter(r -> !r.isLatency() && r.backend().equals(backend)
                && r.workers() == workers && r.batch() == batch && r.mode().equals(mode)).toList(), BenchResult::rowsPerSecond);
    }
}
