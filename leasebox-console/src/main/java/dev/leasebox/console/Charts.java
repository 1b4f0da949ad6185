package dev.leasebox.console;

import java.util.List;
import java.util.Locale;

/** Small inline SVG charts drawn on the server: no script, no library. */
final class Charts {

    private static final int WIDTH = 420;
    private static final int HEIGHT = 70;

    private Charts() {
    }

    /** A line per series over the kept samples, scaled to the largest value of all; labelled with it. */
    static String lines(String id, List<Series> series) {
        double max = series.stream().flatMap(s -> s.values().stream()).mapToDouble(Double::doubleValue).max().orElse(0);
        int points = series.stream().mapToInt(s -> s.values().size()).max().orElse(0);
        StringBuilder svg = new StringBuilder("<svg id=\"").append(id).append("\" width=\"100%\" height=\"")
                .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" preserveAspectRatio=\"none\" role=\"img\">");
        svg.append("<rect x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT)
                .append("\" fill=\"#fafbfc\" stroke=\"#eceff3\"/>");
        for (Series s : series) {
            if (s.values().size() < 2) {
                continue;
            }
            svg.append("<polyline fill=\"none\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\" stroke=\"")
                    .append(s.colour()).append("\" points=\"");
            for (int i = 0; i < s.values().size(); i++) {
                double x = points < 2 ? 0 : (double) i * (WIDTH - 2) / (points - 1) + 1;
                double y = HEIGHT - 2 - (max <= 0 ? 0 : s.values().get(i) / max * (HEIGHT - 6));
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            svg.append("\"/>");
        }
        svg.append("</svg><div class=\"note\">");
        for (Series s : series) {
            svg.append("<span style=\"color:").append(s.colour()).append("\">&#9632;</span> ").append(ConsolePage.esc(s.name()))
                    .append(" &nbsp; ");
        }
        svg.append("(top of the chart: ").append(number(max)).append(")</div>");
        return svg.toString();
    }

    /** One named series of values, oldest first, drawn in {@code colour}. */
    record Series(String name, String colour, List<Double> values) {
    }

    static String number(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) value);
        }
        return String.format(Locale.ROOT, value < 10 ? "%.2f" : "%,.1f", value);
    }
}
