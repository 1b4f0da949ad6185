package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxMaintenance;

import java.util.Optional;

/** The page's frame (head, style, refresh script) and the redrive confirmation page. */
final class ConsolePage {

    private static final String STYLE = """
            body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
            header{background:#1d2330;color:#fff;padding:10px 20px}header h1{font-size:18px;margin:0;display:inline}
            header span{color:#aeb6c5;margin-left:12px}main{padding:12px 20px;max-width:1200px}
            .cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
            .card{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:8px 14px;min-width:130px}
            .card b{display:block;font-size:22px}.card small{color:#5b6475}
            .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:12px}
            section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:8px 14px}
            h2{font-size:15px;margin:4px 0 8px}table{border-collapse:collapse;width:100%}
            td,th{text-align:left;padding:3px 8px;border-bottom:1px solid #eceff3;vertical-align:top}
            td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
            .note{color:#5b6475;font-size:12px}.flash{background:#e3f4e6;border:1px solid #9fd3a8;padding:8px 12px;border-radius:6px}
            .problem{background:#fbe7e7;border:1px solid #e3a3a3;padding:8px 12px;border-radius:6px}
            .err{font-family:ui-monospace,monospace;font-size:12px;color:#8a1f1f;word-break:break-word}
            button{cursor:pointer}svg{display:block}
            """;

    private ConsolePage() {
    }

    /** The whole page: the live part inline, refreshed by a small script every sampling interval. */
    static String page(ConsoleSampler sampler, Optional<String> flash, String token) {
        long refreshMillis = Math.max(1000, sampler.interval().toMillis());
        StringBuilder html = head("Leasebox console: " + sampler.table().qualified());
        html.append("<header><h1>Leasebox console</h1><span>outbox ").append(esc(sampler.table().qualified()))
                .append(" · sampled every ").append(sampler.interval().toMillis()).append(" ms</span></header><main>");
        flash.ifPresent(f -> html.append("<p class=\"flash\" id=\"flash\">").append(esc(f)).append("</p>"));
        html.append("<div id=\"live\">").append(LiveView.render(sampler, token)).append("</div>");
        html.append("</main><script>\n")
                .append("(function(){var live=document.getElementById('live');\n")
                .append("setInterval(function(){fetch('live',{cache:'no-store'}).then(function(r){return r.ok?r.text():null})")
                .append(".then(function(t){if(t!==null){live.innerHTML=t;}}).catch(function(){});},")
                .append(refreshMillis).append(");})();\n</script></body></html>\n");
        return html.toString();
    }

    /** Asks before a redrive: what it will move, what it leaves alone, and two buttons. */
    static String confirm(String table, String target, OutboxMaintenance.Plan plan, String token) {
        StringBuilder html = head("Confirm redrive");
        String what = "all".equals(target) ? "every dead letter" : "dead letter #" + target;
        html.append("<header><h1>Leasebox console</h1><span>outbox ").append(esc(table)).append("</span></header><main>")
                .append("<section id=\"confirm\"><h2>Redrive ").append(esc(what)).append("?</h2>");
        if (plan.matching() == 0) {
            html.append("<p>Nothing to redrive: no dead letter matches")
                    .append(plan.underLiveClaim() == 0 ? "" : " outside a live claim").append(".</p>")
                    .append("<p><a href=\"./\" id=\"back\">Back to the console</a></p>");
        } else {
            html.append("<p>").append(plan.matching()).append(plan.matching() == 1 ? " entry goes" : " entries go")
                    .append(" back to PENDING: attempt count reset to 0, error and dead-letter reason cleared, fence kept. ")
                    .append("A drain will emit ").append(plan.matching() == 1 ? "it" : "them").append(" again with the same ")
                    .append("idempotency key.</p>");
            if (plan.underLiveClaim() > 0) {
                html.append("<p>").append(plan.underLiveClaim()).append(" under a live claim will be left alone.</p>");
            }
            html.append("<form method=\"post\" action=\"redrive-confirm\">")
                    .append(hidden("target", target)).append(hidden("token", token))
                    .append("<button type=\"submit\" id=\"confirm-redrive\">Yes, redrive</button> ")
                    .append("<a href=\"./\" id=\"cancel\">Cancel</a></form>");
        }
        return html.append("</section></main></body></html>\n").toString();
    }

    private static StringBuilder head(String title) {
        return new StringBuilder(8192).append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>")
                .append(esc(title)).append("</title><style>").append(STYLE).append("</style></head><body>");
    }

    static String hidden(String name, String value) {
        return "<input type=\"hidden\" name=\"" + esc(name) + "\" value=\"" + esc(value) + "\">";
    }

    /** {@code text} safe inside HTML text and quoted attributes; null as empty. */
    static String esc(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
