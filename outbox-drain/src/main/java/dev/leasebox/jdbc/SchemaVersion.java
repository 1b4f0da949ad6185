package dev.leasebox.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;

/**
 * Which Leasebox migration a table is at, read from the database's catalog: what {@code leasebox schema},
 * the worker's {@code /ready} and the Spring Boot health indicator report.
 */
public final class SchemaVersion {

    private SchemaVersion() {
    }

    /** The version {@code table} is at, on a connection of {@code dataSource}; see {@link #applied(Connection, TableName, DatabaseKind)}. */
    public static int applied(DataSource dataSource, TableName table) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return applied(connection, table, DatabaseKind.of(connection));
        }
    }

    /**
     * 0: no table; 1: the table without claim columns; 2: with them; 3: with lease slots too; 4: with the
     * claim-style registry too; 5: with the claim-queue index too (V5 replaced the claim-candidate index);
     * 6: with keys compared as bytes; 7: with the wake-up trigger (PostgreSQL; enabled or not); 8: with the
     * registry's count of claims taken over. On PostgreSQL and H2 each script runs in one transaction and V6
     * has nothing to do, so a V5 table is at V6; on H2 V7 has nothing to do either. On MariaDB, whose DDL
     * statements commit one by one, a script counts only when every object it creates exists
     * ({@link MariaDbSchemaVersion}).
     */
    public static int applied(Connection connection, TableName table, DatabaseKind kind) throws SQLException {
        if (kind == DatabaseKind.MARIADB) {
            return MariaDbSchemaVersion.applied(connection, table);
        }
        int columns = appliedColumns(connection, table.schema(), table.table());
        // the registry's name is the table's plus a suffix: past TableName's 40 characters for a long table name
        if (columns == 3 && appliedColumns(connection, table.schema(), table.table() + "_claim_styles") > 0) {
            if (!hasIndex(connection, table, table.table() + "_claim_queue")) {
                return 4;
            }
            if (kind == DatabaseKind.POSTGRESQL && !PostgreSqlCommitListener.hasTrigger(connection, table)) {
                return 6;
            }
            return hasColumn(connection, table, table.table() + "_claim_styles", "taken_over") ? 8 : 7;
        }
        return columns;
    }

    private static boolean hasIndex(Connection connection, TableName table, String index) throws SQLException {
        return inCatalog(connection, table, table.table(),
                (metaData, schema, name) -> anyRow(metaData.getIndexInfo(null, schema, name, false, true), "INDEX_NAME", index));
    }

    private static boolean hasColumn(Connection connection, TableName table, String name, String column) throws SQLException {
        return inCatalog(connection, table, name,
                (metaData, schema, n) -> anyRow(metaData.getColumns(null, schema, n, null), "COLUMN_NAME", column));
    }

    /**
     * Whether {@code probe} finds what it looks for on the table {@code name} in {@code table}'s schema, with the
     * names as written and upper-cased (H2 folds unquoted names to upper case).
     */
    private static boolean inCatalog(Connection connection, TableName table, String name, CatalogProbe probe)
            throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        String schema = table.schema().isEmpty() ? connection.getSchema() : table.schema();
        for (String n : new String[]{name, name.toUpperCase(Locale.ROOT)}) {
            for (String s : new String[]{schema, schema == null ? null : schema.toUpperCase(Locale.ROOT)}) {
                if (probe.finds(metaData, s, n)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a row of {@code rows} (closed here) has {@code value}, in any case, in its column {@code label}. */
    private static boolean anyRow(ResultSet rows, String label, String value) throws SQLException {
        try (rows) {
            while (rows.next()) {
                if (value.equalsIgnoreCase(rows.getString(label))) {
                    return true;
                }
            }
        }
        return false;
    }

    @FunctionalInterface
    private interface CatalogProbe {
        boolean finds(DatabaseMetaData metaData, String schema, String table) throws SQLException;
    }

    private static int appliedColumns(Connection connection, String tableSchema, String table) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        for (String name : new String[]{table, table.toUpperCase(Locale.ROOT)}) {
            String schema = tableSchema.isEmpty() ? connection.getSchema() : tableSchema;
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
