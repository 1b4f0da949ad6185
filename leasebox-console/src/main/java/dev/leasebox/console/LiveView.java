package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxTableStatus;
import java.time.Duration;
import java.util.List;
import java.util.function.ToDoubleFunction;

import static dev.leasebox.console.ConsolePage.esc;

/** The part of the page that refreshes: figures, charts, holders and dead letters, from the kept samples. */
final class LiveView {

    private LiveView() {
    }

    static String render(ConsoleSampler sampler, String token) {
        StringBuilder html = new StringBuilder(16384);
        sampler.problem().ifPresent(p -> html.append("<p class=\"problem\" id=\"problem\">Cannot read the outbox: ")
                .append(esc(p)).append("</p>"));
        List<Sample> history = sampler.history();
        if (history.isEmpty()) {
            return html.append("<p id=\"waiting\">No sample read yet.</p>").toString();
        }
        Sample now = history.get(history.size() - 1);
        cards(html, now, history);
        html.append("<div class=\"grid\">");
        backlog(html, now, history);
        throughput(html, history);
        holders(html, now);
        losses(html, history, sampler.interval());
        html.append("</div>");
        deadLetters(html, now, token);
        html.append("<p class=\"note\">Read at ").append(now.observedAt()).append(" (UTC). The charts and the loss and ")
                .append("reclaim counts cover the ").append(history.size()).append(history.size() == 1 ? " sample" : " samples")
                .append(" kept in memory since this console started")
                .append(now.takenOver().isEmpty() ? "." : now.takenOverInTable()
                        ? "; claims taken over are the table's count, added by its workers since V8 was applied."
                        : "; claims taken over are the workers' own count, since they started.").append("</p>");
        return html.toString();
    }

    private static void cards(StringBuilder html, Sample now, List<Sample> history) {
        html.append("<div class=\"cards\">");
        card(html, "backlog", Charts.number(now.backlog()), "waiting: pending, deferred, retrying");
        card(html, "oldest-pending", now.oldestPendingAge().map(LiveView::age).orElse("none"), "oldest waiting entry's age");
        card(html, "delivered-rate", Charts.number(average(history, Sample::deliveredPerSecond, 5)) + "/s",
                "delivered, last 5 samples");
        card(html, "delivered-total", Charts.number(now.count("DELIVERED")), "delivered in the table");
        card(html, "dead-letter-count", Charts.number(now.count("DEAD_LETTERED")), "dead letters");
        card(html, "live-claims", Charts.number(now.claims().live()), "live recorded claims");
        card(html, "losses", Charts.number(sum(history, s -> s.claims().losses())), "lease losses seen");
        card(html, "reclaims", Charts.number(sum(history, s -> s.claims().reclaims())), "reclaims seen");
        card(html, "taken-over", now.takenOver().isPresent() ? Charts.number(now.takenOver().getAsLong()) : "n/a",
                now.takenOver().isPresent() ? "claims taken over"
                        : "claims taken over: see the workers' metrics, or apply V8 to count them in the table");
        html.append("</div>");
    }

    private static void card(StringBuilder html, String id, String value, String label) {
        html.append("<div class=\"card\"><b id=\"").append(id).append("\">").append(esc(value)).append("</b><small>")
                .append(esc(label)).append("</small></div>");
    }

    private static void backlog(StringBuilder html, Sample now, List<Sample> history) {
        html.append("<section id=\"backlog-section\"><h2>Backlog by status</h2><table id=\"status-counts\">")
                .append("<tr><th>status</th><th class=\"n\">entries</th></tr>");
        now.counts().forEach((status, n) -> html.append("<tr><td>").append(status).append("</td><td class=\"n\" id=\"count-")
                .append(status).append("\">").append(Charts.number(n)).append("</td></tr>"));
        html.append("</table><h2>Trend</h2>").append(Charts.lines("backlog-chart", List.of(
                new Charts.Series("waiting", "#2b6cb0", values(history, s -> s.backlog())),
                new Charts.Series("retrying", "#d69e2e", values(history, s -> s.count("RETRYABLE_FAILURE"))),
                new Charts.Series("dead letters", "#c53030", values(history, s -> s.count("DEAD_LETTERED"))))))
                .append("</section>");
    }

    private static void throughput(StringBuilder html, List<Sample> history) {
        html.append("<section id=\"throughput-section\"><h2>Throughput (entries per second)</h2>")
                .append(Charts.lines("throughput-chart", List.of(
                        new Charts.Series("delivered/s", "#2f855a", values(history, Sample::deliveredPerSecond)),
                        new Charts.Series("dead-lettered/s", "#c53030", values(history, Sample::deadLetteredPerSecond)))))
                .append("<p class=\"note\">Growth of the DELIVERED and DEAD_LETTERED counts between two samples; a purge ")
                .append("in between shows as no growth.</p><h2>Oldest waiting entry (seconds)</h2>")
                .append(Charts.lines("oldest-chart", List.of(new Charts.Series("age", "#6b46c1", values(history,
                        s -> s.oldestPendingAge().map(Duration::toSeconds).orElse(0L))))))
                .append("</section>");
    }

    private static void holders(StringBuilder html, Sample now) {
        html.append("<section id=\"holders-section\"><h2>Claims by owner</h2><table id=\"claims-by-owner\">")
                .append("<tr><th>owner</th><th class=\"n\">live</th><th class=\"n\">past expiry</th></tr>");
        if (now.owners().isEmpty()) {
            html.append("<tr><td colspan=\"3\">(no recorded claims)</td></tr>");
        }
        for (OutboxTableStatus.OwnerClaims o : now.owners()) {
            html.append("<tr><td>").append(esc(o.owner())).append("</td><td class=\"n\">").append(o.active())
                    .append("</td><td class=\"n\">").append(o.expired()).append("</td></tr>");
        }
        html.append("</table>");
        if (now.partitionMode()) {
            html.append("<h2>Slots by holder (partition leases)</h2><table id=\"slots-by-holder\"><tr><th>holder</th>")
                    .append("<th class=\"n\">slots</th><th>alive</th><th>last grant</th></tr>");
            for (OutboxTableStatus.SlotHolder h : now.slots().orElseThrow()) {
                html.append("<tr><td>").append(h.holder() == null ? "(never granted)" : esc(h.holder()))
                        .append("</td><td class=\"n\">").append(h.slots()).append("</td><td>")
                        .append(h.holder() == null ? "" : h.alive() ? "yes" : "no").append("</td><td>")
                        .append(h.lastGranted() == null ? "" : h.lastGranted()).append("</td></tr>");
            }
            html.append("</table>");
        } else {
            html.append("<p class=\"note\">No slot has been granted: the drains lease rows, not slots.</p>");
        }
        html.append("<p class=\"note\">Recorded claims only: lean claims write nothing to the row until they complete.</p>")
                .append("</section>");
    }

    private static void losses(StringBuilder html, List<Sample> history, Duration interval) {
        List<Charts.Series> series = new java.util.ArrayList<>(List.of(
                new Charts.Series("losses", "#c53030", values(history, s -> s.claims().losses())),
                new Charts.Series("reclaims", "#dd6b20", values(history, s -> s.claims().reclaims())),
                new Charts.Series("claims past expiry", "#718096", values(history, s -> s.claims().expired()))));
        Sample latest = history.get(history.size() - 1);
        boolean counted = latest.takenOver().isPresent();
        if (counted) {
            series.add(new Charts.Series("taken over", "#805ad5", takenOverGrowth(history)));
        }
        html.append("<section id=\"losses-section\"><h2>Lease losses and reclaims</h2>")
                .append(Charts.lines("losses-chart", series))
                .append("<p class=\"note\">A <b>loss</b> is a claim seen on its row after its expiry: its holder neither ")
                .append("completed nor extended it in time. A <b>reclaim</b> is a row seen under a new claim token in the ")
                .append("next sample with no emission attempt recorded in between. Both are read from the table every ")
                .append(interval.toMillis()).append(" ms; what starts and ends between two samples is not seen, so they ")
                .append("are lower bounds. A claim <b>taken over</b> is a row a worker claimed while an earlier claim on ")
                .append("it had expired unfinished (its holder died, stalled or lost its lease, and may have emitted it): ")
                .append("the worker counts it as it claims, in <code>leasebox_claims_total{event=\"taken_over\"}</code>, ")
                .append(!counted ? "which this console, reading a table without V8, does not see."
                        : latest.takenOverInTable() ? "and adds it to the table's count (V8) within a heartbeat, which this "
                        + "console shows; each sample's takeovers are the count's growth since the sample before."
                        : "and this console shows the count of the workers it was given.")
                .append(" Recorded claims only: lean claims leave nothing on the row to tell it by.</p></section>");
    }

    /** Claims taken over since the sample before, per sample (a count that went down counts none). */
    private static List<Double> takenOverGrowth(List<Sample> history) {
        List<Double> growth = new java.util.ArrayList<>(history.size());
        for (int i = 0; i < history.size(); i++) {
            java.util.OptionalLong now = history.get(i).takenOver();
            java.util.OptionalLong before = i == 0 ? java.util.OptionalLong.empty() : history.get(i - 1).takenOver();
            growth.add(now.isPresent() && before.isPresent() ? Math.max(0, now.getAsLong() - before.getAsLong()) : 0.0);
        }
        return growth;
    }

    private static void deadLetters(StringBuilder html, Sample now, String token) {
        html.append("<section id=\"dead-letters-section\" style=\"margin-top:12px\"><h2>Recent dead letters</h2>");
        if (now.deadLetters().isEmpty()) {
            html.append("<p id=\"no-dead-letters\">None.</p></section>");
            return;
        }
        html.append("<table id=\"dead-letters\"><tr><th class=\"n\">id</th><th>idempotency key</th><th class=\"n\">")
                .append("attempts</th><th>error</th><th></th></tr>");
        for (OutboxTableStatus.DeadLetter d : now.deadLetters()) {
            html.append("<tr id=\"dl-").append(d.id()).append("\"><td class=\"n\">").append(d.id()).append("</td><td>")
                    .append(esc(d.idempotencyKey())).append("</td><td class=\"n\">").append(d.attempts())
                    .append("</td><td class=\"err\">").append(esc(d.reason() == null ? "" : d.reason()));
            if (d.lastError() != null && (d.reason() == null || !message(d.reason()).equals(message(d.lastError())))) {
                html.append(d.reason() == null ? "" : "<br>last error: ").append(esc(d.lastError()));
            }
            html.append("</td><td>").append(redriveForm(String.valueOf(d.id()), "Redrive", token)).append("</td></tr>");
        }
        html.append("</table><p>").append(redriveForm("all", "Redrive all " + now.count("DEAD_LETTERED")
                + " dead letters…", token)).append("</p></section>");
    }

    /** The text after a leading "kind: " label, which reason and last error may word differently. */
    private static String message(String text) {
        int colon = text.indexOf(": ");
        return colon < 0 ? text : text.substring(colon + 2);
    }

    private static String redriveForm(String target, String label, String token) {
        return "<form method=\"post\" action=\"redrive\" style=\"margin:0\">" + ConsolePage.hidden("target", target)
                + ConsolePage.hidden("token", token) + "<button type=\"submit\" id=\"redrive-" + esc(target) + "\">"
                + esc(label) + "</button></form>";
    }

    private static List<Double> values(List<Sample> history, ToDoubleFunction<Sample> f) {
        return history.stream().map(s -> f.applyAsDouble(s)).toList();
    }

    private static double average(List<Sample> history, ToDoubleFunction<Sample> f, int last) {
        List<Sample> tail = history.subList(Math.max(1, history.size() - last), history.size());
        return tail.stream().mapToDouble(f).average().orElse(0);
    }

    private static long sum(List<Sample> history, java.util.function.ToLongFunction<Sample> f) {
        return history.stream().mapToLong(f).sum();
    }

    static String age(Duration age) {
        long s = Math.max(0, age.getSeconds());
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m" + (s % 60) + "s";
        }
        return (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}
