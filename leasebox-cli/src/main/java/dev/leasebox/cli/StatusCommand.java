package dev.leasebox.cli;

import dev.leasebox.jdbc.OutboxTableStatus;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.outbox.EmissionStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** What the outbox looks like now: counts per status, claims by owner, backlog age, dead letters. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Counts per status, active and expired claims by owner, slot holders (partition leases), "
                + "oldest pending age, recent dead letters.",
                "--json prints one JSON object (schema leasebox.status/1, see docs/operations.md); --watch repeats "
                        + "every INTERVAL until interrupted."})
final class StatusCommand implements Callable<Integer> {

    /** The JSON document's schema name; a change that drops or retypes a field gets a new number. */
    static final String JSON_SCHEMA = "leasebox.status/1";

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--json", description = "Print one JSON object (one line) instead of the table.")
    boolean json;

    @Option(names = "--watch", arity = "0..1", paramLabel = "INTERVAL", fallbackValue = "2s", converter = DurationConverter.class,
            description = "Refresh every INTERVAL (default 2s) until interrupted (Ctrl-C); with --json, one object per line.")
    Duration watch;

    /** Everything one status view shows, read at {@code observedAt}. */
    record Snapshot(Instant observedAt, Map<String, Long> counts, List<OutboxTableStatus.OwnerClaims> owners,
                    Optional<List<OutboxTableStatus.SlotHolder>> slots, Optional<Instant> oldestPending,
                    List<OutboxTableStatus.DeadLetter> deadLetters) {

        long total() {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Partition mode: a slot of the table was ever granted to a worker. */
        boolean partitionMode() {
            return slots.isPresent() && slots.get().stream().anyMatch(h -> h.holder() != null);
        }
    }

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        if (watch != null && watch.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("--watch " + DurationConverter.format(watch) + " is too short: use at least 100ms, e.g. --watch 2s");
        }
        database.poolSize = 1;
        try (HikariDataSource dataSource = database.open()) {
            // the store's start-up check: a missing table or claim columns give one line naming the script
            dev.leasebox.jdbc.store.JdbcOutboxStore.builder(dataSource).table(database.tableName()).open();
            OutboxTableStatus report = new OutboxTableStatus(dataSource, database.tableName());
            while (true) {
                Snapshot snapshot = read(report, Clock.systemUTC().instant());
                if (watch != null && !json) {
                    out.print("\033[H\033[2J"); // home and clear: the view is redrawn in place
                }
                if (json) {
                    out.println(json(database.tableName().qualified(), snapshot));
                } else {
                    print(out, snapshot);
                }
                out.flush();
                if (watch == null) {
                    return CliErrors.EXIT_OK;
                }
                try {
                    Thread.sleep(watch.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return CliErrors.EXIT_OK;
                }
            }
        }
    }

    static Snapshot read(OutboxTableStatus report, Instant now) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (EmissionStatus s : EmissionStatus.values()) {
            counts.put(s.name(), 0L);
        }
        counts.putAll(report.countsByStatus());
        return new Snapshot(now, counts, report.claimsByOwner(now), report.slotsByHolder(now), report.oldestPendingCreatedAt(),
                report.recentDeadLetters());
    }

    private void print(PrintWriter out, Snapshot s) {
        Instant now = s.observedAt();
        out.println("Outbox " + database.tableName() + (watch == null ? "" : " at " + now + " (every "
                + DurationConverter.format(watch) + ", Ctrl-C to stop)"));
        out.printf("  %-18s %10s%n", "status", "entries");
        s.counts().forEach((status, n) -> out.printf("  %-18s %,10d%n", status, n));
        out.printf("  %-18s %,10d%n", "total", s.total());
        out.println();
        out.printf("  %-40s %8s %8s%n", "claim owner", "active", "expired");
        if (s.owners().isEmpty()) {
            out.println("  (no claims)");
        }
        s.owners().forEach(o -> out.printf("  %-40s %,8d %,8d%n", o.owner(), o.active(), o.expired()));
        out.println();
        if (s.partitionMode()) {
            out.printf("  %-40s %8s %8s  %s%n", "slot holder (partition leases)", "slots", "alive", "last grant");
            s.slots().get().forEach(h -> out.printf("  %-40s %,8d %8s  %s%n", h.holder() == null ? "(never granted)" : h.holder(),
                    h.slots(), h.holder() == null ? "" : h.alive() ? "yes" : "no",
                    h.lastGranted() == null ? "" : h.lastGranted().toString()));
            out.println();
        }
        out.println("  oldest pending: " + s.oldestPending().map(t -> formatAge(Duration.between(t, now)) + " old (created " + t + ")")
                .orElse("none"));
        out.println("  dead letters: " + s.counts().getOrDefault("DEAD_LETTERED", 0L)
                + (s.deadLetters().isEmpty() ? "" : "; most recent:"));
        s.deadLetters().forEach(d -> out.println("    " + describe(d)));
    }

    /** One dead letter on one line: which entry, what kind, when written, after how many attempts, and why. */
    static String describe(OutboxTableStatus.DeadLetter d) {
        String why = d.reason() == null && d.lastError() == null ? "no reason or error recorded"
                : d.reason() == null ? "last error: " + d.lastError()
                : d.lastError() == null || d.reason().contains(d.lastError()) ? d.reason()
                : d.reason() + "; last error: " + d.lastError();
        return String.format(java.util.Locale.ROOT, "#%d %s (type %s, written %s) after %d attempt%s: %s", d.id(), d.idempotencyKey(),
                d.type(), d.createdAt(), d.attempts(), d.attempts() == 1 ? "" : "s", why);
    }

    static String formatAge(Duration age) {
        if (age.isNegative()) {
            return "0s";
        }
        long s = age.getSeconds();
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m" + (s % 60) + "s";
        }
        return (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }

    /** The {@value #JSON_SCHEMA} document, on one line; docs/operations.md describes every field. */
    static String json(String table, Snapshot s) {
        Json j = new Json();
        j.open().field("schema").string(JSON_SCHEMA).field("table").string(table)
                .field("observed_at").string(s.observedAt().toString());
        j.field("counts").open();
        s.counts().forEach((status, n) -> j.field(status).number(n));
        j.close().field("total").number(s.total());
        j.field("oldest_pending_created_at").string(s.oldestPending().map(Instant::toString).orElse(null));
        j.field("oldest_pending_age_seconds");
        if (s.oldestPending().isPresent()) {
            j.number(Math.max(0, Duration.between(s.oldestPending().get(), s.observedAt()).toSeconds()));
        } else {
            j.string(null);
        }
        j.field("live_claims").number(s.owners().stream().mapToLong(OutboxTableStatus.OwnerClaims::active).sum());
        j.field("claims_by_owner").array();
        for (OutboxTableStatus.OwnerClaims o : s.owners()) {
            j.open().field("owner").string(o.owner()).field("active").number(o.active()).field("expired").number(o.expired()).close();
        }
        j.closeArray();
        if (s.partitionMode()) {
            j.field("slots_by_holder").array();
            for (OutboxTableStatus.SlotHolder h : s.slots().get()) {
                j.open().field("holder").string(h.holder()).field("slots").number(h.slots());
                j.field("alive").bool(h.holder() != null && h.alive());
                j.field("last_granted_at").string(h.lastGranted() == null ? null : h.lastGranted().toString()).close();
            }
            j.closeArray();
        }
        j.field("recent_dead_letters").array();
        for (OutboxTableStatus.DeadLetter d : s.deadLetters()) {
            j.open().field("id").number(d.id()).field("idempotency_key").string(d.idempotencyKey())
                    .field("type").string(d.type()).field("created_at").string(d.createdAt() == null ? null : d.createdAt().toString())
                    .field("attempts").number(d.attempts()).field("reason").string(d.reason())
                    .field("last_error").string(d.lastError()).close();
        }
        j.closeArray();
        return j.close().toString();
    }

    /** A minimal JSON writer: objects, arrays, strings (escaped), numbers, booleans, null. */
    static final class Json {
        private final StringBuilder text = new StringBuilder();
        private boolean first = true;

        private void separate() {
            if (!first) {
                text.append(',');
            }
            first = false;
        }

        Json open() {
            separate();
            text.append('{');
            first = true;
            return this;
        }

        Json close() {
            text.append('}');
            first = false;
            return this;
        }

        Json array() {
            text.append('[');
            first = true;
            return this;
        }

        Json closeArray() {
            text.append(']');
            first = false;
            return this;
        }

        Json field(String name) {
            separate();
            quote(name);
            text.append(':');
            first = true;
            return this;
        }

        Json string(String value) {
            separate();
            if (value == null) {
                text.append("null");
            } else {
                quote(value);
            }
            return this;
        }

        Json number(long value) {
            separate();
            text.append(value);
            return this;
        }

        Json bool(boolean value) {
            separate();
            text.append(value);
            return this;
        }

        private void quote(String s) {
            text.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> text.append("\\\"");
                    case '\\' -> text.append("\\\\");
                    case '\n' -> text.append("\\n");
                    case '\r' -> text.append("\\r");
                    case '\t' -> text.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            text.append(String.format("\\u%04x", (int) c));
                        } else {
                            text.append(c);
                        }
                    }
                }
            }
            text.append('"');
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
