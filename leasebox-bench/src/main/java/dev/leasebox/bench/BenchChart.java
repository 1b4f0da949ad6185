package dev.leasebox.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The bench report as one self-contained HTML page with two inline SVG bar charts (rows/s, and the
 * ratio to the database backend with the 1.0, 0.7 and 0.5 marks), grouped by workers × batch.
 */
final class BenchChart {

    private static final String[] COLOURS = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1"};
    private static final int BAR = 14;
    private static final int GAP = 18;
    private static final int HEIGHT = 260;
    private static final int LEFT = 70;
    private static final int TOP = 20;

    private BenchChart() {
    }

    static String html(BenchReport report, String title) {
        List<BenchResult> results = report.results().stream().filter(r -> !r.isLatency()).toList();
        Set<String> backends = new LinkedHashSet<>();
        Set<String> cells = new LinkedHashSet<>();
        for (BenchResult r : results) {
            backends.add(r.backend());
            cells.add(cell(r));
        }
        StringBuilder page = new StringBuilder();
        page.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title))
                .append("</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>").append(escape(title)).append("</h1>\n");
        page.append(legend(new ArrayList<>(backends)));
        page.append("<h2>Rows finalized per second</h2>\n");
        double maxRate = results.stream().mapToDouble(BenchResult::rowsPerSecond).max().orElse(1);
        page.append(svg(report, new ArrayList<>(backends), new ArrayList<>(cells), false, niceCeiling(maxRate)));
        page.append("<h2>Ratio to the database backend (same workers and batch, same run)</h2>\n");
        double maxRatio = results.stream().mapToDouble(report::ratioToDatabase).filter(d -> !Double.isNaN(d)).max().orElse(1);
        page.append(svg(report, new ArrayList<>(backends), new ArrayList<>(cells), true, Math.max(1.5, niceCeiling(maxRatio))));
        page.append(cpu(results));
        page.append(latency(report.results().stream().filter(BenchResult::isLatency).toList()));
        page.append("<h2>Figures</h2>\n<pre>").append(escape(report.table())).append("</pre>\n</body></html>\n");
        return page.toString();
    }

    private static String svg(BenchReport report, List<String> backends, List<String> cells, boolean ratios, double max) {
        int groupWidth = backends.size() * BAR + GAP;
        int width = LEFT + cells.size() * groupWidth + 20;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">%n", width, HEIGHT + TOP + 50));
        for (int i = 0; i <= 4; i++) {
            double value = max * i / 4;
            int y = TOP + HEIGHT - (int) Math.round(HEIGHT * i / 4.0);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                            + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LEFT, y, width - 10, y, LEFT - 5, y + 4,
                    ratios ? String.format(Locale.ROOT, "%.2f", value) : String.format(Locale.ROOT, "%,.0f", value)));
        }
        if (ratios) {
            for (double mark : new double[]{1.0, 0.7, 0.5}) {
                int y = TOP + HEIGHT - (int) Math.round(HEIGHT * mark / max);
                svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\" "
                        + "stroke-dasharray=\"4 3\"/><text x=\"%d\" y=\"%d\">%.1fx</text>%n", LEFT, y, width - 10, y, width - 40, y - 3, mark));
            }
        }
        for (int c = 0; c < cells.size(); c++) {
            int x0 = LEFT + c * groupWidth + GAP / 2;
            for (int b = 0; b < backends.size(); b++) {
                BenchResult r = find(report, backends.get(b), cells.get(c));
                if (r == null) {
                    continue;
                }
                double value = ratios ? report.ratioToDatabase(r) : r.rowsPerSecond();
                if (Double.isNaN(value)) {
                    continue;
                }
                int h = (int) Math.round(HEIGHT * Math.min(value, max) / max);
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                                + "<title>%s %s: %s</title></rect>%n", x0 + b * BAR, TOP + HEIGHT - h, BAR - 2, h,
                        COLOURS[b % COLOURS.length], escape(r.backend()), escape(cells.get(c)),
                        ratios ? BenchReport.number(value, 2) + "x" : BenchReport.number(value, 0) + " rows/s"));
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x0 + backends.size() * BAR / 2, TOP + HEIGHT + 16, escape(cells.get(c))));
        }
        return svg.append("</svg>\n").toString();
    }

    /** CPU seconds per 10,000 rows of each throughput cell, a bar per process group; empty when none was measured. */
    private static String cpu(List<BenchResult> results) {
        if (results.stream().allMatch(r -> Double.isNaN(r.cpu().jvmPer10k()))) {
            return "";
        }
        List<String> groups = results.stream().map(r -> r.backend() + " " + r.mode() + " " + cell(r) + " r" + r.round())
                .toList();
        List<String> series = List.of("database server", "jvm (with in-process coordinators)", "coordinator process");
        double[][] values = new double[groups.size()][];
        for (int g = 0; g < groups.size(); g++) {
            CpuFigures c = results.get(g).cpu();
            values[g] = new double[]{c.databasePer10k(), c.jvmPer10k(), c.coordinatorPer10k()};
        }
        double max = java.util.Arrays.stream(values).flatMapToDouble(java.util.Arrays::stream).filter(v -> !Double.isNaN(v))
                .max().orElse(1);
        return "<h2>CPU seconds per 10,000 rows finalized</h2>\n" + legend(series)
                + bars(groups, series.size(), values, niceCeiling(max), false, "s");
    }

    /**
     * Commit to finalized, p50 and p99, of the latency cells: a group per load and wake-up setting, a bar per
     * backend, on a logarithmic scale (idle cells wait for the poll, loaded ones for the queue). Empty without any.
     */
    private static String latency(List<BenchResult> cells) {
        if (cells.isEmpty()) {
            return "";
        }
        List<String> backends = cells.stream().map(BenchResult::backend).distinct().toList();
        List<String> groups = cells.stream().map(r -> r.latency().load() + ", wake-ups " + (r.wakeUps() ? "on" : "off"))
                .distinct().toList();
        StringBuilder out = new StringBuilder("<h2>Commit to finalized, ms (open-loop arrivals; log scale)</h2>\n")
                .append(legend(backends));
        for (String percentile : List.of("p50", "p99")) {
            double[][] values = new double[groups.size()][backends.size()];
            for (double[] row : values) {
                java.util.Arrays.fill(row, Double.NaN);
            }
            for (BenchResult r : cells) {
                LatencySummary f = r.latency().finalized();
                values[groups.indexOf(r.latency().load() + ", wake-ups " + (r.wakeUps() ? "on" : "off"))]
                        [backends.indexOf(r.backend())] = percentile.equals("p50") ? f.p50Ms() : f.p99Ms();
            }
            double max = java.util.Arrays.stream(values).flatMapToDouble(java.util.Arrays::stream)
                    .filter(v -> !Double.isNaN(v)).max().orElse(1);
            out.append("<h3>").append(percentile).append("</h3>\n")
                    .append(bars(groups, backends.size(), values, niceCeiling(max), true, "ms"));
        }
        return out.toString();
    }

    /** Grouped bars: {@code values[group][series]}, NaN for none; linear from 0, or logarithmic from max / 10,000. */
    static String bars(List<String> groups, int seriesCount, double[][] values, double max, boolean log, String unit) {
        int groupWidth = seriesCount * BAR + GAP;
        int width = LEFT + groups.size() * groupWidth + 20;
        double min = max / 10_000;
        java.util.function.DoubleUnaryOperator height = v -> log
                ? HEIGHT * Math.max(0, Math.log10(Math.max(v, min) / min)) / Math.log10(max / min)
                : HEIGHT * Math.min(v, max) / max;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">%n", width,
                HEIGHT + TOP + 50));
        for (int i = 0; i <= 4; i++) {
            double value = log ? min * Math.pow(10, i) : max * i / 4;
            int y = TOP + HEIGHT - (int) Math.round(height.applyAsDouble(value));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LEFT, y, width - 10, y, LEFT - 5, y + 4,
                    BenchReport.number(value, value < 1 ? 3 : value < 10 ? 1 : 0)));
        }
        for (int g = 0; g < groups.size(); g++) {
            int x0 = LEFT + g * groupWidth + GAP / 2;
            for (int b = 0; b < seriesCount; b++) {
                double value = values[g][b];
                if (Double.isNaN(value)) {
                    continue;
                }
                int h = (int) Math.round(height.applyAsDouble(value));
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                                + "<title>%s: %s %s</title></rect>%n", x0 + b * BAR, TOP + HEIGHT - h, BAR - 2, h,
                        COLOURS[b % COLOURS.length], escape(groups.get(g)), BenchReport.number(value, 3), unit));
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x0 + seriesCount * BAR / 2, TOP + HEIGHT + 16, escape(groups.get(g))));
        }
        return svg.append("</svg>\n").toString();
    }

    private static String legend(List<String> backends) {
        StringBuilder legend = new StringBuilder("<p>");
        for (int b = 0; b < backends.size(); b++) {
            legend.append(String.format(Locale.ROOT, "<span style=\"display:inline-block;width:12px;height:12px;"
                    + "background:%s\"></span> %s &nbsp; ", COLOURS[b % COLOURS.length], escape(backends.get(b))));
        }
        return legend.append("</p>\n").toString();
    }

    private static BenchResult find(BenchReport report, String backend, String cell) {
        return report.results().stream().filter(r -> !r.isLatency() && r.backend().equals(backend) && cell(r).equals(cell))
                .findFirst().orElse(null);
    }

    private static String cell(BenchResult r) {
        return "W=" + r.workers() + " B=" + r.batch();
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code value}. */
    static double niceCeiling(double value) {
        if (!(value > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[]{1, 2, 2.5, 5, 10}) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
