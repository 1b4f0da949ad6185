package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.SchemaVersion;
import dev.leasebox.jdbc.TableName;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Prints the outbox's migration scripts, or applies the missing ones when asked to explicitly. The
 * drain itself never creates or alters the schema.
 */
@Command(name = "schema", mixinStandardHelpOptions = true,
        header = "Print the outbox table's migration scripts, or apply the missing ones with --apply.",
        description = {"Prints the outbox table's migration scripts: V1 creates the table, V2 adds the claim columns, "
                + "V3 adds partition leases (lease slots, worker membership, database-held leases), V4 the claim-style "
                + "registry, V5 the claim-queue index that makes claims HOT updates, V6 compares keys byte for byte "
                + "on MariaDB, V7 the trigger that wakes drains at commit on PostgreSQL, V8 the count of claims taken over "
                + "that consoles read.",
                "",
                "With --apply --jdbc-url URL it lists the scripts the table lacks, then applies them; --dry-run lists "
                + "them with their SQL and changes nothing. On MariaDB, whose DDL statements commit one by one, an "
                + "interrupted apply is completed by running it again.",
                "",
                "With --drop it prints the statements that remove the table with its companion tables and sequences; "
                + "it runs nothing."})
final class SchemaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--dialect", paramLabel = "postgresql|mariadb|h2",
            description = "The database the scripts are for: postgresql, mariadb or h2 (required without --apply; "
                    + "detected with it).")
    String dialect;

    @Option(names = "--table", paramLabel = "NAME", defaultValue = "leasebox_outbox",
            description = "The outbox table, optionally schema-qualified (default: ${DEFAULT-VALUE}).")
    String table;

    @Option(names = "--slots", paramLabel = "N", defaultValue = "" + LeaseboxSchema.DEFAULT_SLOT_COUNT,
            description = "Lease slots V3 creates, for worker --granularity partition; fixed once applied (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--apply", description = "List the scripts the table at --jdbc-url lacks, then apply them.")
    boolean apply;

    @Option(names = "--dry-run", description = "With --apply: list the scripts it would apply, with their SQL, and change nothing.")
    boolean dryRun;

    @Option(names = "--drop", description = "Print the statements that drop the table, its companion tables "
            + "(_workers, _leases, _lease_slots, _claim_styles), sequences (_claim_token_seq, _lease_fence_seq) and, on PostgreSQL, the wake-up trigger function. Runs nothing.")
    boolean drop;

    @Option(names = "--jdbc-url", paramLabel = "URL", description = "The database to apply to (with --apply).")
    String jdbcUrl;

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        TableName tableName = TableName.parse(table);
        if (dryRun && !apply) {
            throw new IllegalArgumentException("--dry-run goes with --apply: it lists what --apply would do");
        }
        if (drop && apply) {
            throw new IllegalArgumentException("--drop only prints DROP statements; it does not go with --apply");
        }
        if (!apply) {
            if (jdbcUrl != null) {
                throw new IllegalArgumentException("--jdbc-url is only used with --apply; without it the scripts are printed");
            }
            LeaseboxSchema schema = new LeaseboxSchema(kind(), tableName, slots);
            if (drop) {
                out.println("-- Drops outbox table " + tableName + " with its companion tables and sequences. Stop every "
                        + "worker first; the entries are lost.");
                schema.dropStatements().forEach(out::println);
                return CliErrors.EXIT_OK;
            }
            for (LeaseboxSchema.Migration migration : schema.migrations()) {
                out.println("-- " + migration.fileName() + " (" + migration.resource() + ")");
                out.println(migration.sql().strip());
                out.println();
            }
            return CliErrors.EXIT_OK;
        }
        if (jdbcUrl == null) {
            throw new IllegalArgumentException("--apply needs --jdbc-url URL: the database to apply the scripts to");
        }
        try (HikariDataSource dataSource = dev.leasebox.cli.JdbcDataSources.pooled(jdbcUrl, "", "", 1);
             Connection connection = dataSource.getConnection()) {
            DatabaseKind detected = DatabaseKind.of(connection);
            if (dialect != null && detected != kind()) {
                throw new IllegalArgumentException("--dialect " + dialect + " does not match the database at --jdbc-url, which is "
                        + detected.folder());
            }
            LeaseboxSchema schema = new LeaseboxSchema(detected, tableName, slots);
            int applied = SchemaVersion.applied(connection, tableName, detected);
            if (applied >= LeaseboxSchema.LATEST_VERSION) {
                out.println("Outbox table " + tableName + " is up to date (V1 to V" + LeaseboxSchema.LATEST_VERSION
                        + " applied); nothing to do.");
                return CliErrors.EXIT_OK;
            }
            List<LeaseboxSchema.Migration> pending = schema.migrations().stream().filter(m -> m.version() > applied).toList();
            out.println((applied == 0 ? "Outbox table " + tableName + " does not exist yet; "
                    : "Outbox table " + tableName + " has V1 to V" + applied + "; ")
                    + (dryRun ? "--apply would apply:" : "applying:"));
            pending.forEach(m -> out.println("  " + m.fileName()));
            if (dryRun) {
                for (LeaseboxSchema.Migration migration : pending) {
                    out.println();
                    out.println("-- " + migration.fileName() + " (" + migration.resource() + ")");
                    out.println(migration.sql().strip());
                }
                out.println();
                out.println("Dry run: nothing was changed.");
                return CliErrors.EXIT_OK;
            }
            schema.apply(connection, applied + 1, LeaseboxSchema.LATEST_VERSION);
            pending.forEach(m -> out.println("Applied " + m.fileName() + " to " + tableName));
            return CliErrors.EXIT_OK;
        }
    }
    private DatabaseKind kind() {
        if (dialect == null) {
            throw new IllegalArgumentException("--dialect is required to print the scripts: postgresql, mariadb or h2");
        }
        for (DatabaseKind kind : DatabaseKind.values()) {
            if (kind.folder().equals(dialect.toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown --dialect '" + dialect + "': use postgresql, mariadb or h2");
    }
}
