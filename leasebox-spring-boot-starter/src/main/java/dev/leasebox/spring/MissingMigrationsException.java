package dev.leasebox.spring;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;

/**
 * The outbox table lacks migrations (or does not exist) and {@code leasebox.schema.apply} is false. The
 * message names the scripts; {@link LeaseboxStartFailureAnalyzer} adds the ways to apply them.
 */
public class MissingMigrationsException extends JdbcOutboxException {

    private static final long serialVersionUID = 1L;

    private final transient TableName table;
    private final int version;

    MissingMigrationsException(TableName table, DatabaseKind kind, int version, String where) {
        super(message(table, kind, version, where));
        this.table = table;
        this.version = version;
    }

    /** The migration the table is at: 0 when it does not exist. */
    public int version() {
        return version;
    }

    /** The outbox table. */
    public TableName table() {
        return table;
    }

    private static String message(TableName table, DatabaseKind kind, int version, String where) {
        int latest = LeaseboxSchema.LATEST_VERSION;
        String folder = LeaseboxSchema.resourcePath(kind, "");
        if (version == 0) {
            return "Outbox table " + table + " does not exist at " + where + ": apply the scripts of " + folder
                    + " in order (V1 to V" + latest + ")";
        }
        LeaseboxSchema schema = new LeaseboxSchema(kind, table);
        String first = schema.migrations().get(version).fileName();
        String last = schema.migrations().get(latest - 1).fileName();
        return "Outbox table " + table + " at " + where + " is at migration V" + version + " of V" + latest + ": apply "
                + folder + first + (version + 1 == latest ? "" : " to " + last);
    }
}
