package dev.leasebox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The results of one bench run and their ratios to the {@code database} backend and to the
 * {@code baseline} pseudo-backend (the bare two statements, {@link BaselineCell}) measured at the same
 * workers, batch and mode in the same round of the same run; renders them as CSV and as a text table
 * (medians over the rounds when there are several).
 */
final class BenchReport {

    static final String DATABASE = "database";
    static final String BASELINE = "baseline";

    static final List<String> COLUMNS = List.of("backend", "workers", "batch", "rows_per_s", "ratio_to_database",
            "claim_p50_ms", "claim_p90_ms", "claim_p99_ms", "window_s", "rows_in_window", "claim_calls",
            "delivered_rows", "completions", "finalized_twice", "emitted_twice", "refused_completions", "coordinator", "variant",
            "phase_ms", "load_1m", "ratio_to_baseline", "mode", "round", "wake_ups", "cpu_database_s_per_10k",
            "cpu_database_server_s_per_10k", "cpu_jvm_s_per_10k", "cpu_coordinator_s_per_10k", "machine_busy_pct", "cpu_processes", "latency_load",
            "arrival_rate", "arrivals", "late_arrivals", "writer_commits", "unfinished", "emit_p50_ms", "emit_p99_ms",
            "emit_p999_ms", "emit_max_ms", "final_p50_ms", "final_p99_ms", "final_p999_ms", "final_max_ms",
            "writer_lag_p99_ms", "writer_lag_max_ms");

    private final List<BenchResult> results = new ArrayList<>();

    void add(BenchResult result) {
        results.add(result);
    }

    List<BenchResult> results() {
        return List.copyOf(results);
    }

    /** Rows/s of {@code r} over rows/s of the database backend in the same cell and round; NaN when not measured. */
    double ratioToDatabase(BenchResult r) {
        return ratioTo(DATABASE, r);
    }

    /** Rows/s of {@code r} over rows/s of the bare-SQL baseline in the same cell and round; NaN when not measured. */
    double ratioToBaseline(BenchResult r) {
        return ratioTo(BASELINE, r);
    }

    private double ratioTo(String reference, BenchResult r) {
        if (r.isLatency()) {
            return Double.NaN; // a latency cell's rate is its arrival rate, not a measure of speed
        }
        return results.stream().filter(o -> !o.isLatency() && o.backend().equals(reference) && o.workers() == r.workers()
                        && o.batch() == r.batch() && o.mode().equals(r.mode()) && o.round() == r.round())
                .findFirst().map(o -> Percentiles.ratio(r.rowsPerSecond(), o.rowsPerSecond())).orElse(Double.NaN);
    }

    /** Whether every cell's checks held. */
    boolean checksHeld() {
        return results.stream().allMatch(BenchResult::checksHeld);
    }

    /** The CSV: a header line, then one line per cell in the order measured (RFC 4180 quoting). */
    String csv() {
        StringBuilder out = new StringBuilder(String.join(",", COLUMNS)).append('\n');
        for (BenchResult r : results) {
            List<String> fields = new ArrayList<>(List.of(r.backend(), Integer.toString(r.workers()), Integer.toString(r.batch()),
                    number(r.rowsPerSecond(), 1), number(ratioToDatabase(r), 3), number(r.claimP50Ms(), 3),
                    number(r.claimP90Ms(), 3), number(r.claimP99Ms(), 3), number(r.windowSeconds(), 2),
                    Long.toString(r.rowsInWindow()), Long.toString(r.claimCalls()), Long.toString(r.deliveredRows()),
                    Long.toString(r.completions()), Long.toString(r.finalizedTwice()), Long.toString(r.emittedTwice()),
                    Long.toString(r.refused()), r.coordinator(), r.variant(), r.phases(), number(r.load1m(), 2),
                    number(ratioToBaseline(r), 3), r.mode(), Integer.toString(r.round())));
            fields.addAll(cpuFields(r));
            fields.addAll(latencyFields(r.latency()));
            out.append(String.join(",", fields.stream().map(BenchReport::csvField).toList())).append('\n');
        }
        return out.toString();
    }

    /** The wake-up setting and the CPU columns of one result. */
    static List<String> cpuFields(BenchResult r) {
        CpuFigures cpu = r.cpu();
        return List.of(Boolean.toString(r.wakeUps()), number(cpu.databasePer10k(), 3), number(cpu.serverPer10k(), 3),
                number(cpu.jvmPer10k(), 3),
                number(cpu.coordinatorPer10k(), 3), number(cpu.machineBusyPercent(), 1), cpu.processes());
    }

    /** A latency cell's columns; empty fields for a throughput cell. */
    static List<String> latencyFields(LatencyFigures l) {
        if (l == null) {
            return java.util.Collections.nCopies(16, "");
        }
        List<String> fields = new ArrayList<>(List.of(l.load(), number(l.targetRate(), 2), Long.toString(l.arrivals()),
                Long.toString(l.late()), Long.toString(l.commits()), Long.toString(l.unfinished())));
        fields.addAll(l.emission().csvFields());
        fields.addAll(l.finalized().csvFields());
        fields.add(number(l.writerLag().p99Ms(), 3));
        fields.add(number(l.writerLag().maxMs(), 3));
        return fields;
    }

    /**
     * The table printed at the end of a run, ratios first: one line per backend, mode and cell, with the
     * median over the rounds of its rows/s, of its ratios (each taken within its round) and of its latencies.
     */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-18s %-7s %3s %5s %6s %9s %10s %10s %9s %9s %9s %8s %8s %8s %8s%n", "backend",
                "mode", "W", "B", "rounds", "vs db", "vs base", "rows/s", "p50 ms", "p90 ms", "p99 ms", "db cpu", "jvm cpu",
                "crd cpu", "checks"));
        Map<String, List<BenchResult>> groups = new LinkedHashMap<>();
        for (BenchResult r : results) {
            if (r.isLatency()) {
                continue;
            }
            groups.computeIfAbsent(r.backend() + "|" + r.mode() + "|" + r.workers() + "|" + r.batch(),
                    k -> new ArrayList<>()).add(r);
        }
        for (List<BenchResult> g : groups.values()) {
            BenchResult first = g.get(0);
            out.append(String.format(Locale.ROOT, "%-18s %-7s %3d %5d %6d %8sx %9sx %10.0f %9.2f %9.2f %9.2f %8s %8s %8s %8s%n",
                    first.backend(), first.mode(), first.workers(), first.batch(), g.size(),
                    number(median(g, this::ratioToDatabase), 2), number(median(g, this::ratioToBaseline), 2),
                    median(g, BenchResult::rowsPerSecond), median(g, BenchResult::claimP50Ms),
                    median(g, BenchResult::claimP90Ms), median(g, BenchResult::claimP99Ms),
                    CpuFigures.shown(median(g, r -> r.cpu().databasePer10k())),
                    CpuFigures.shown(median(g, r -> r.cpu().jvmPer10k())),
                    CpuFigures.shown(median(g, r -> r.cpu().coordinatorPer10k())),
                    g.stream().allMatch(BenchResult::checksHeld) ? "ok" : "FAILED"));
        }
        out.append("(cpu: CPU seconds per 10,000 rows finalized; db = the database processes working for the bench "
                + "(PostgreSQL: this JVM's backends and the background processes), jvm = this JVM with any in-process "
                + "coordinator, crd = the coordinator's own server process)\n");
        return out.append(latencyTable()).toString();
    }

    /**
     * The latency cells, one line each: the arrival rate, the arrivals the writer was late for, and commit to
     * emission and commit to finalized at p50, p99, p99.9 and max, in ms. Empty when none was measured.
     */
    String latencyTable() {
        List<BenchResult> cells = results.stream().filter(BenchResult::isLatency).toList();
        if (cells.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("\nLatency (open-loop Poisson arrivals; ms from the writer's commit; late: "
                + "begun more than 1 ms after the planned time, lag: planned time to insert):\n");
        out.append(String.format(Locale.ROOT, "%-18s %-6s %-5s %9s %8s %6s %8s %-31s %-31s %7s %7s%n", "backend", "load",
                "wake", "rate/s", "arrivals", "late", "lag p99", "emission p50/p99/p99.9/max", "finalized p50/p99/p99.9/max",
                "db cpu", "jvm cpu"));
        for (BenchResult r : cells) {
            LatencyFigures l = r.latency();
            out.append(String.format(Locale.ROOT, "%-18s %-6s %-5s %9.1f %8d %6d %8s %-31s %-31s %7s %7s%s%n", r.backend(),
                    l.load(), l.wakeUps() ? "on" : "off", l.targetRate(), l.arrivals(), l.late(),
                    number(l.writerLag().p99Ms(), 1), shown(l.emission()),
                    shown(l.finalized()), CpuFigures.shown(r.cpu().databasePer10k()), CpuFigures.shown(r.cpu().jvmPer10k()),
                    l.unfinished() > 0 ? "  " + l.unfinished() + " unfinished" : ""));
        }
        return out.toString();
    }

    private static String shown(LatencySummary s) {
        return String.join("/", number(s.p50Ms(), 1), number(s.p99Ms(), 1), number(s.p999Ms(), 1), number(s.maxMs(), 1));
    }

    /** The median of {@code value} over {@code results} (the mean of the middle two for an even count); NaN values skipped. */
    static double median(List<BenchResult> results, java.util.function.ToDoubleFunction<BenchResult> value) {
        double[] values = results.stream().mapToDouble(value).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    /** A number with {@code decimals} places and a dot, or the empty field for NaN. */
    static String number(double value, int decimals) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "";
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** A CSV field, quoted when it holds a comma, a quote or a line break (quotes doubled). */
    static String csvField(String value) {
        if (value.contains(",") || value.contains("\"") || value.contains("\n") || value.contains("\r")) {
            return "\"" + value.replace("\"", "\"\"") + "\"";
        }
        return value;
    }
}
