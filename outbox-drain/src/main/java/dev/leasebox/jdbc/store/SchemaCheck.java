package dev.leasebox.jdbc.store;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.MissingClaimColumnsException;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.dialect.SqlDialect;

/** The start-up check of {@link JdbcOutboxStore}: reads only, and says in one line what to apply. */
final class SchemaCheck {

    private SchemaCheck() {
    }

    static SqlDialect check(DataSource dataSource, TableName table, DatabaseKind kind, boolean claims) {
        String where = JdbcUrls.describe(dataSource);
        try (Connection c = connect(dataSource, where)) {
            SqlDialect dialect = SqlDialect.of(kind != null ? kind : DatabaseKind.of(c), table);
            String v1 = LeaseboxSchema.resourcePath(dialect.kind(), LeaseboxSchema.V1_FILE);
            String v2 = LeaseboxSchema.resourcePath(dialect.kind(), LeaseboxSchema.V2_FILE);
            try {
                dialect.probe(c, "probe_table");
            } catch (SQLException e) {
                if (dialect.isMissingTable(e)) {
                    String scripts = v1.substring(0, v1.lastIndexOf('/') + 1);
                    throw new JdbcOutboxException("Outbox table " + table + " does not exist at " + where + ": apply the "
                            + "scripts of " + scripts + " in order (V1 to V" + LeaseboxSchema.LATEST_VERSION + ") with your "
                            + "migration tool or `leasebox schema --apply`; the drain never creates tables itself");
                }
                throw failed(table, where, e);
            }
            if (claims) {
                try {
                    dialect.probe(c, "probe_claim_columns");
                    if (dialect.kind() != DatabaseKind.H2) {
                        dialect.probe(c, "probe_token_sequence");
                    }
                } catch (SQLException e) {
                    if (dialect.isMissingColumn(e) || dialect.isMissingTable(e)) {
                        throw new MissingClaimColumnsException("Outbox table " + table + " at " + where + " lacks the claim "
                                + "columns (claim_owner, claim_token, fence_high_water, …): apply " + v2 + " to it",
                                "set useClaimLeases = false and accept that several workers may emit the same entry twice");
                    }
                    throw failed(table, where, e);
                }
            }
            return dialect;
        } catch (SQLException e) {
            throw failed(table, where, e);
        }
    }

    private static Connection connect(DataSource dataSource, String where) {
        try {
            return dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            String cause = JdbcUrls.rootMessage(e);
            throw new JdbcOutboxException("Cannot reach the outbox database at " + where + ": " + cause
                    + (cause.contains("No suitable driver") ? " (" + DatabaseKind.SUPPORTED + "; put its JDBC driver on "
                    + "the class path)" : " (check the URL, that the database runs and accepts this user)"), e);
        }
    }

    private static JdbcOutboxException failed(TableName table, String where, SQLException e) {
        return new JdbcOutboxException("Cannot check outbox table " + table + " at " + where + ": "
                + JdbcUrls.rootMessage(e), e);
    }
}
