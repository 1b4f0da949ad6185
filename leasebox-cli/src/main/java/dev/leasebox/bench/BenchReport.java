package dev.leasebox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The results of one bench run and their ratios to the {@code database} backend measured at the same
 * workers and batch in the same run; renders them as CSV and as a text table.
 */
final class BenchReport {

    static final String DATABASE = "database";

    static final List<String> COLUMNS = List.of("backend", "workers", "batch", "rows_per_s", "ratio_to_database",
            "claim_p50_ms", "claim_p90_ms", "claim_p99_ms", "window_s", "rows_in_window", "claim_calls",
            "delivered_rows", "completions", "finalized_twice", "emitted_twice", "refused_completions", "coordinator", "variant",
            "phase_ms", "load_1m");

    private final List<BenchResult> results = new ArrayList<>();

    void add(BenchResult result) {
        results.add(result);
    }

    List<BenchResult> results() {
        return List.copyOf(results);
    }

    /** Rows/s of {@code r} over rows/s of the database backend at the same W and B; NaN when not measured. */
    double ratioToDatabase(BenchResult r) {
        return baseline(r.workers(), r.batch()).map(db -> Percentiles.ratio(r.rowsPerSecond(), db.rowsPerSecond()))
                .orElse(Double.NaN);
    }

    private Optional<BenchResult> baseline(int workers, int batch) {
        return results.stream().filter(r -> r.backend().equals(DATABASE) && r.workers() == workers && r.batch() == batch)
                .findFirst();
    }

    /** Whether every cell's checks held. */
    boolean checksHeld() {
        return results.stream().allMatch(BenchResult::checksHeld);
    }

    /** The CSV: a header line, then one line per cell in the order measured (RFC 4180 quoting). */
    String csv() {
        StringBuilder out = new StringBuilder(String.join(",", COLUMNS)).append('\n');
        for (BenchResult r : results) {
            List<String> fields = List.of(r.backend(), Integer.toString(r.workers()), Integer.toString(r.batch()),
                    number(r.rowsPerSecond(), 1), number(ratioToDatabase(r), 3), number(r.claimP50Ms(), 3),
                    number(r.claimP90Ms(), 3), number(r.claimP99Ms(), 3), number(r.windowSeconds(), 2),
                    Long.toString(r.rowsInWindow()), Long.toString(r.claimCalls()), Long.toString(r.deliveredRows()),
                    Long.toString(r.completions()), Long.toString(r.finalizedTwice()), Long.toString(r.emittedTwice()),
                    Long.toString(r.refused()), r.coordinator(), r.variant(), r.phases(), number(r.load1m(), 2));
            out.append(String.join(",", fields.stream().map(BenchReport::csvField).toList())).append('\n');
        }
        return out.toString();
    }

    /** The table printed at the end of a run, ratios first. */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-10s %3s %5s %9s %10s %9s %9s %9s %8s%n", "backend", "W", "B",
                "ratio", "rows/s", "p50 ms", "p90 ms", "p99 ms", "checks"));
        for (BenchResult r : results) {
            out.append(String.format(Locale.ROOT, "%-10s %3d %5d %8sx %10.0f %9.2f %9.2f %9.2f %8s%n", r.backend(),
                    r.workers(), r.batch(), number(ratioToDatabase(r), 2), r.rowsPerSecond(), r.claimP50Ms(),
                    r.claimP90Ms(), r.claimP99Ms(), r.checksHeld() ? "ok" : "FAILED"));
        }
        return out.toString();
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
