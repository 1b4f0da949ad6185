package dev.leasebox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Prints the outbox's migration scripts, or applies the missing ones when asked to explicitly. The
 * drain itself never creates or alters the schema.
 */
@Command(name = "schema", mixinStandardHelpOptions = true,
        header = "Print the outbox table's migration scripts, or apply the missing ones with --apply.",
        description = {"Print the outbox table's migration scripts (V1 creates the table, V2 adds the claim columns,",
                "V3 adds partition leases: lease slots, worker membership, database-held leases),",
                "or apply the missing ones to a database with --apply --jdbc-url URL."})
final class SchemaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--dialect", paramLabel = "postgresql|h2",
            description = "The database the scripts are for (required without --apply; detected with it).")
    String dialect;

    @Option(names = "--table", paramLabel = "NAME", defaultValue = "leasebox_outbox",
            description = "The outbox table, optionally schema-qualified (default: ${DEFAULT-VALUE}).")
    String table;

    @Option(names = "--slots", paramLabel = "N", defaultValue = "" + LeaseboxSchema.DEFAULT_SLOT_COUNT,
            description = "Lease slots V3 creates, for --lease-granularity partition; fixed once applied (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--apply", description = "Apply the scripts not yet applied to --jdbc-url.")
    boolean apply;

    @Option(names = "--jdbc-url", paramLabel = "URL", description = "The database to apply to (with --apply).")
    String jdbcUrl;

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        TableName tableName = TableName.parse(table);
        if (!apply) {
            if (jdbcUrl != null) {
                throw new IllegalArgumentException("--jdbc-url is only used with --apply; without it the scripts are printed");
            }
            LeaseboxSchema schema = new LeaseboxSchema(kind(), tableName, slots);
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
            int applied = appliedVersion(connection, tableName, detected);
            if (applied >= LeaseboxSchema.LATEST_VERSION) {
                out.println("Outbox table " + tableName + " is up to date (V1 to V" + LeaseboxSchema.LATEST_VERSION
                        + " applied); nothing to do.");
                return CliErrors.EXIT_OK;
            }
            schema.apply(connection, applied + 1, LeaseboxSchema.LATEST_VERSION);
            for (LeaseboxSchema.Migration migration : schema.migrations()) {
                if (migration.version() > applied) {
                    out.println("Applied " + migration.fileName() + " to " + tableName);
                }
            }
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

    /**
     * 0: no table; 1: the table without claim columns; 2: with them; 3: with lease slots too; 4: with the
     * claim-style registry too.
     */
    private static int appliedVersion(Connection connection, TableName table, DatabaseKind kind) throws SQLException {
        int columns = appliedColumns(connection, table, kind);
        if (columns == 3 && tableExists(connection, new TableName(table.schema(), table.table() + "_claim_styles"), kind)) {
            return 4;
        }
        return columns;
    }

    private static boolean tableExists(Connection connection, TableName table, DatabaseKind kind) throws SQLException {
        return appliedColumns(connection, table, kind) > 0;
    }

    private static int appliedColumns(Connection connection, TableName table, DatabaseKind kind) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        if (kind == DatabaseKind.MARIADB) {
            // MariaDB's databases are JDBC catalogs: the table's qualifier, else the connection's database.
            String catalog = table.schema().isEmpty() ? connection.getCatalog() : table.schema();
            return columnsVersion(metaData, catalog, null, table.table());
        }
        for (String name : new String[]{table.table(), table.table().toUpperCase(Locale.ROOT)}) {
            String schema = table.schema().isEmpty() ? connection.getSchema() : table.schema();
            String schemaUpper = schema == null ? null : schema.toUpperCase(Locale.ROOT);
            for (String s : new String[]{schema, schemaUpper}) {
                int version = columnsVersion(metaData, null, s, name);
                if (version > 0) {
                    return version;
                }
            }
        }
        return 0;
    }

    /** 0: no such table; 1, 2, 3: which of V1, V2, V3 its columns show. */
    private static int columnsVersion(DatabaseMetaData metaData, String catalog, String schema, String name)
            throws SQLException {
        boolean tableFound = false;
        boolean claimColumns = false;
        boolean slotColumn = false;
        try (ResultSet columns = metaData.getColumns(catalog, schema, name, null)) {
            while (columns.next()) {
                tableFound = true;
                if ("fence_high_water".equalsIgnoreCase(columns.getString("COLUMN_NAME"))) {
                    claimColumns = true;
                }
                if ("lease_slot".equalsIgnoreCase(columns.getString("COLUMN_NAME"))) {
                    slotColumn = true;
                }
            }
        }
        return !tableFound ? 0 : slotColumn ? 3 : claimColumns ? 2 : 1;
    }
}
