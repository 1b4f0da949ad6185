package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** What the outbox looks like now: counts per status, claims by owner, backlog age, dead letters. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Counts per status, active and expired claims by owner, slot holders (partition leases), "
                + "oldest pending age, recent dead letters.")
final class StatusCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        Instant now = Clock.systemUTC().instant();
        database.poolSize = 1;
        try (HikariDataSource dataSource = database.open()) {
            // the store's start-up check: a missing table or claim columns give one line naming the script
            dev.leasebox.jdbc.JdbcOutboxStore.builder(dataSource).table(database.tableName()).open();
            OutboxReport report = new OutboxReport(dataSource, database.tableName());
            out.println("Outbox " + database.tableName());
            Map<String, Long> counts = report.countsByStatus();
            long total = counts.values().stream().mapToLong(Long::longValue).sum();
            out.printf("  %-18s %10s%n", "status", "entries");
            counts.forEach((status, n) -> out.printf("  %-18s %,10d%n", status, n));
            out.printf("  %-18s %,10d%n", "total", total);
            out.println();
            out.printf("  %-40s %8s %8s%n", "claim owner", "active", "expired");
            var owners = report.claimsByOwner(now);
            if (owners.isEmpty()) {
                out.println("  (no claims)");
            }
            owners.forEach(o -> out.printf("  %-40s %,8d %,8d%n", o.owner(), o.active(), o.expired()));
            out.println();
            report.slotsByHolder(now).ifPresent(holders -> {
                out.printf("  %-40s %8s %8s  %s%n", "slot holder (partition leases)", "slots", "alive", "last grant");
                holders.forEach(h -> out.printf("  %-40s %,8d %8s  %s%n", h.holder() == null ? "(never granted)" : h.holder(),
                        h.slots(), h.holder() == null ? "" : h.alive() ? "yes" : "no",
                        h.lastGranted() == null ? "" : h.lastGranted().toString()));
                out.println();
            });
            Optional<Instant> oldest = report.oldestPendingCreatedAt();
            out.println("  oldest pending: " + oldest.map(t -> formatAge(Duration.between(t, now)) + " old (created " + t + ")")
                    .orElse("none"));
            var deadLetters = report.recentDeadLetters();
            out.println("  dead letters: " + counts.getOrDefault("DEAD_LETTERED", 0L)
                    + (deadLetters.isEmpty() ? "" : "; most recent:"));
            deadLetters.forEach(d -> out.printf("    #%d %s after %d attempts: %s%n", d.id(), d.idempotencyKey(), d.attempts(),
                    d.reason() == null ? d.lastError() : d.reason()));
        }
        return CliErrors.EXIT_OK;
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
}
