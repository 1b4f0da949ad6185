package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.OutboxMaintenance;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/** Moves dead letters (and, asked, FAILED entries) back to PENDING: {@link OutboxMaintenance#redrive}. */
@Command(name = "redrive", mixinStandardHelpOptions = true,
        description = {"Move dead-lettered entries (with --include-failed also FAILED ones) back to PENDING: attempt counts "
                + "reset, errors cleared, fences kept; rows under a live claim are left alone.",
                "Select by --ids, --type, --partition-key and --older-than (all given must match), or --all; "
                        + "--dry-run prints the count and changes nothing."})
final class RedriveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--ids", split = ",", paramLabel = "ID", description = "Only these entry ids, e.g. --ids 17,42.")
    List<Long> ids;

    @Option(names = "--type", paramLabel = "TYPE", description = "Only entries of this type.")
    String type;

    @Option(names = "--partition-key", paramLabel = "KEY", description = "Only entries with this partition key.")
    String partitionKey;

    @Option(names = "--older-than", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Only entries created longer ago than this, e.g. 1h or 7d (by the database's clock).")
    Duration olderThan;

    @Option(names = "--include-failed", description = "FAILED entries too, not only DEAD_LETTERED ones.")
    boolean includeFailed;

    @Option(names = "--all", description = "Every dead letter (asked for explicitly, so that a forgotten selector redrives nothing).")
    boolean all;

    @Option(names = "--dry-run", description = "Print how many entries would be redriven; change nothing.")
    boolean dryRun;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "500",
            description = "Entries per statement (each its own transaction; default: ${DEFAULT-VALUE}).")
    int batch;

    @Override
    public Integer call() {
        OutboxMaintenance.Redrive selection = selection();
        CliErrors.requireBetween("--batch", batch, 1, OutboxMaintenance.MAX_BATCH);
        PrintWriter out = spec.commandLine().getOut();
        database.poolSize = 1;
        try (HikariDataSource dataSource = database.open()) {
            // the store's start-up check: a missing table or claim columns give one line naming the script
            JdbcOutboxStore.builder(dataSource).table(database.tableName()).open();
            OutboxMaintenance maintenance = OutboxMaintenance.on(dataSource, database.tableName());
            OutboxMaintenance.Plan plan = maintenance.planRedrive(selection);
            String what = includeFailed ? "dead-lettered or failed" : "dead-lettered";
            String held = plan.underLiveClaim() == 0 ? ""
                    : "; " + entries(plan.underLiveClaim()) + " under a live claim left alone";
            if (dryRun) {
                out.println(entries(plan.matching()) + " " + what + " to redrive in " + database.tableName() + held
                        + " (dry run: nothing changed)");
                return CliErrors.EXIT_OK;
            }
            Progress progress = new Progress(spec.commandLine().getErr(), "redrive", plan.matching());
            long done = maintenance.redrive(selection, batch, n -> {
                if (plan.matching() > batch) {
                    progress.update(n);
                }
            });
            if (plan.matching() > batch) {
                progress.finish();
            }
            out.println("Redrove " + entries(done) + " " + what + " in " + database.tableName() + " to PENDING" + held);
        }
        return CliErrors.EXIT_OK;
    }

    static String entries(long n) {
        return String.format(java.util.Locale.ROOT, "%,d %s", n, n == 1 ? "entry" : "entries");
    }

    /** The selection the flags describe; refuses none at all, or --all beside a selector. */
    OutboxMaintenance.Redrive selection() {
        OutboxMaintenance.Redrive r = OutboxMaintenance.Redrive.deadLetters();
        if (ids != null && !ids.isEmpty()) {
            r = r.ids(ids);
        }
        if (type != null) {
            r = r.type(type);
        }
        if (partitionKey != null) {
            r = r.partitionKey(partitionKey);
        }
        if (olderThan != null) {
            if (olderThan.isNegative()) {
                throw new IllegalArgumentException("--older-than must not be negative, was " + DurationConverter.format(olderThan));
            }
            r = r.olderThan(olderThan);
        }
        if (includeFailed) {
            r = r.includingFailed();
        }
        if (all && r.isNarrowed()) {
            throw new IllegalArgumentException("--all redrives every dead letter: leave it out to select by --ids, --type, "
                    + "--partition-key or --older-than");
        }
        if (!all && !r.isNarrowed()) {
            throw new IllegalArgumentException("choose what to redrive: --ids, --type, --partition-key or --older-than, "
                    + "or --all for every dead letter (try --dry-run first)");
        }
        return r;
    }
}
