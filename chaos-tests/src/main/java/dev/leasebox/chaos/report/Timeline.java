package dev.leasebox.chaos.report;

import dev.leasebox.chaos.check.CheckResult;
import dev.leasebox.chaos.history.FaultEvent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The timeline page: an inline SVG with time across and entries down (sampled to at most 400 rows),
 * each claim a bar from its grant to its end coloured by holder, refused or lost claims outlined
 * red, faults as labelled vertical lines.
 */
final class Timeline {

    private static final String[] COLOURS = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
            "#e377c2", "#bcbd22"};
    private static final int WIDTH = 1200;
    private static final int LEFT = 70;
    private static final int TOP = 40;
    private static final int MAX_ROWS = 400;
    private static final double ROW_HEIGHT = 2;

    private Timeline() {
    }

    static String html(RunReport.Run run, CheckResult r, List<FaultEvent> faults) {
        Rows rows = Rows.sampled(r.spans());
        Scale scale = Scale.of(r.spans(), faults);
        int height = TOP + (int) Math.ceil(rows.index().size() * ROW_HEIGHT) + 40;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n", WIDTH + 20, height));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ccc\"/>%n",
                LEFT, TOP, WIDTH - LEFT, height - TOP - 40));
        Map<String, String> colourOf = claimBars(svg, r.spans(), rows, scale);
        faultLines(svg, faults, scale, height);
        secondTicks(svg, scale, height);
        legend(svg, colourOf, height);
        svg.append("<text x=\"4\" y=\"").append(TOP + 10).append("\" fill=\"#555\">entries</text>\n</svg>\n");
        return page(run, r, rows.step(), svg);
    }

    /** The entries drawn, every {@code step}th of them, each with its row number. */
    private record Rows(Map<Long, Integer> index, int step) {
        static Rows sampled(List<CheckResult.ClaimSpan> spans) {
            TreeSet<Long> allEntries = new TreeSet<>();
            spans.forEach(s -> allEntries.add(s.entry()));
            List<Long> entries = new ArrayList<>(allEntries);
            int step = Math.max(1, (int) Math.ceil(entries.size() / (double) MAX_ROWS));
            Map<Long, Integer> row = new LinkedHashMap<>();
            for (int i = 0; i < entries.size(); i += step) {
                row.put(entries.get(i), row.size());
            }
            return new Rows(row, step);
        }
    }

    /** Time across: from the first claim or fault ({@code t0}) over {@code span} millis. */
    private record Scale(long t0, double span) {
        static Scale of(List<CheckResult.ClaimSpan> spans, List<FaultEvent> faults) {
            long t0 = Long.MAX_VALUE;
            long t1 = Long.MIN_VALUE;
            for (CheckResult.ClaimSpan s : spans) {
                t0 = Math.min(t0, s.start());
                t1 = Math.max(t1, s.end());
            }
            for (FaultEvent f : faults) {
                t0 = Math.min(t0, f.t());
                t1 = Math.max(t1, f.t());
            }
            if (t0 == Long.MAX_VALUE) {
                t0 = 0;
                t1 = 1;
            }
            return new Scale(t0, Math.max(1, t1 - t0));
        }

        double x(long t) {
            return LEFT + (t - t0) / span * (WIDTH - LEFT);
        }
    }

    /** One bar per claim of a drawn entry; returns the colour given to each holder, in order of appearance. */
    private static Map<String, String> claimBars(StringBuilder svg, List<CheckResult.ClaimSpan> spans, Rows rows,
                                                 Scale scale) {
        Map<String, String> colourOf = new LinkedHashMap<>();
        for (CheckResult.ClaimSpan s : spans) {
            Integer y = rows.index().get(s.entry());
            if (y == null) {
                continue;
            }
            String colour = colourOf.computeIfAbsent(s.owner(), o -> COLOURS[colourOf.size() % COLOURS.length]);
            double x = scale.x(s.start());
            double w = Math.max(1, (s.end() - s.start()) / scale.span() * (WIDTH - LEFT));
            boolean bad = s.outcome().startsWith("refused") || s.outcome().equals("lost") || s.outcome().equals("abandoned");
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>"
                            + "<title>entry %d fence %d %s: %s</title></rect>%n", x, TOP + y * ROW_HEIGHT, w, ROW_HEIGHT,
                    colour, bad ? " stroke=\"#d62728\" stroke-width=\"0.6\"" : "", s.entry(), s.fence(), escape(s.owner()),
                    escape(s.outcome())));
        }
        return colourOf;
    }

    private static void faultLines(StringBuilder svg, List<FaultEvent> faults, Scale scale, int height) {
        int label = 0;
        for (FaultEvent f : faults) {
            double x = scale.x(f.t());
            String colour = f.isInjection() ? "#d62728" : "#7f7f7f";
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-dasharray=\"4 2\"/>%n", x, TOP - 8, x, height - 40, colour));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">%s</text>%n", x + 2,
                    12 + (label++ % 2) * 12, colour, escape(f.fault() + " " + f.target())));
        }
    }

    private static void secondTicks(StringBuilder svg, Scale scale, int height) {
        double span = scale.span();
        for (int s = 0; s <= span / 1000; s += Math.max(1, (int) (span / 1000 / 10))) {
            double x = LEFT + s * 1000.0 / span * (WIDTH - LEFT);
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%ds</text>%n", x, height - 25, s));
        }
    }

    private static void legend(StringBuilder svg, Map<String, String> colourOf, int height) {
        int lx = LEFT;
        for (Map.Entry<String, String> c : colourOf.entrySet()) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, height - 14, c.getValue(), lx + 14, height - 5, escape(c.getKey())));
            lx += 160;
        }
    }

    private static String page(RunReport.Run run, CheckResult r, int step, CharSequence svg) {
        boolean passed = run.error().isEmpty() && r.passed();
        return "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>chaos " + escape(run.scenario()) + " on "
                + escape(run.backend()) + "</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>" + escape(run.scenario())
                + " on " + escape(run.backend()) + (run.unsafeNoFence() ? " (UNSAFE: no fence)" : "") + ": "
                + (passed ? "passed" : "FAILED") + "</h1>\n<p>" + escape(run.proves()) + "</p>\n<p>lost " + r.lost()
                + ", stale completions accepted " + r.staleCompletionsAccepted() + ", fence regressions "
                + r.fenceRegressions() + ", duplicate emissions " + r.duplicateEmissions() + " (unexplained "
                + r.unexplainedDuplicates() + "), stale completions refused " + r.completionsRefused() + ", faults "
                + r.faultsInjected() + String.format(Locale.ROOT, ", reclaim p50 %.2f s max %.2f s", r.reclaimSecondsP50(),
                r.reclaimSecondsMax()) + "</p>\n<p>Each bar is one claim (grant to completion, loss or expiry), coloured by "
                + "holder; red outline: refused, lost or abandoned. Dashed lines: faults (red) and their end (grey)."
                + (step > 1 ? " Every " + step + "th entry shown." : "") + "</p>\n" + svg + "</body></html>\n";
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
