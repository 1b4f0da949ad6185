package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.OutboxMaintenance;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.EmissionStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** Retention: deletes terminal rows older than an age, in short batches ({@link OutboxMaintenance#purge}). */
@Command(name = "purge", mixinStandardHelpOptions = true,
        description = {"Delete terminal rows older than --older-than (delivered ones by delivery time, others by creation), "
                + "in batches of short transactions; rows under a live claim and the row with the highest fence are kept.",
                "--dry-run prints the count and changes nothing."})
final class PurgeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--older-than", required = true, paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Delete rows that finished longer ago than this, e.g. 7d or 12h (by the database's clock).")
    Duration olderThan;

    @Option(names = "--status", split = ",", paramLabel = "STATUS", defaultValue = "delivered",
            description = "Which terminal rows: delivered, dead-lettered and/or failed, comma-separated (default: ${DEFAULT-VALUE}).")
    List<String> statuses;

    @Option(names = "--dry-run", description = "Print how many rows would be deleted; change nothing.")
    boolean dryRun;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Rows deleted per statement (each its own transaction; default: ${DEFAULT-VALUE}).")
    int batch;

    @Override
    public Integer call() {
        OutboxMaintenance.Purge purge = new OutboxMaintenance.Purge(statuses(statuses), checkedAge(olderThan));
        CliErrors.requireBetween("--batch", batch, 1, OutboxMaintenance.MAX_BATCH);
        PrintWriter out = spec.commandLine().getOut();
        database.poolSize = 1;
        try (HikariDataSource dataSource = database.open()) {
            JdbcOutboxStore.builder(dataSource).table(database.tableName()).open();
            OutboxMaintenance maintenance = OutboxMaintenance.on(dataSource, database.tableName());
            String what = describe(purge);
            OutboxMaintenance.Plan plan = maintenance.planPurge(purge);
            long kept = maintenance.keptAtHighestFence(purge);
            String keptNote = kept == 0 ? "" : "; " + rows(kept) + " kept: the table's highest fence stays on record, "
                    + "so a coordinator that lost its data restarts its fences above it";
            if (dryRun) {
                out.println(rows(plan.matching()) + " to purge from " + database.tableName() + " (" + what
                        + ") (dry run: nothing changed)" + keptNote);
                return CliErrors.EXIT_OK;
            }
            Progress progress = new Progress(spec.commandLine().getErr(), "purge", plan.matching());
            long done = maintenance.purge(purge, batch, progress::update);
            if (done > 0) {
                progress.finish();
            }
            out.println("Purged " + rows(done) + " from " + database.tableName() + " (" + what + ")" + keptNote);
        }
        return CliErrors.EXIT_OK;
    }

    static String describe(OutboxMaintenance.Purge purge) {
        return purge.statuses().stream().sorted().map(PurgeCommand::flagValue).collect(Collectors.joining(", "))
                + ", older than " + DurationConverter.format(purge.olderThan());
    }

    static String rows(long n) {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? "row" : "rows");
    }

    static Duration checkedAge(Duration age) {
        if (age.isNegative()) {
            throw new IllegalArgumentException("--older-than must not be negative, was " + DurationConverter.format(age));
        }
        return age;
    }

    static String flagValue(EmissionStatus status) {
        return status.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code delivered,dead-lettered} (any case, '-' or '_') as statuses; anything else names the choices. */
    static Set<EmissionStatus> statuses(List<String> values) {
        Set<EmissionStatus> out = EnumSet.noneOf(EmissionStatus.class);
        for (String value : values) {
            String v = value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            switch (v) {
                case "delivered" -> out.add(EmissionStatus.DELIVERED);
                case "dead-lettered" -> out.add(EmissionStatus.DEAD_LETTERED);
                case "failed" -> out.add(EmissionStatus.FAILED);
                default -> throw new IllegalArgumentException("--status '" + value + "': purge deletes terminal rows only; "
                        + "use delivered, dead-lettered or failed, comma-separated");
            }
        }
        return out;
    }
}
