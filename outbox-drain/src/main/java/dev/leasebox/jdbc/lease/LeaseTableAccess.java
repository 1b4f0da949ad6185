package dev.leasebox.jdbc.lease;

import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.lease.LeaseManagerException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * How a {@link JdbcLeaseManager} reaches its lease table and explains failing to: a connection that
 * cannot be had, a table or sequence that is missing at open, and what to do about a statement that
 * failed. Every failure is one {@link LeaseManagerException} naming the table and the
 * (password-redacted) address.
 */
final class LeaseTableAccess {

    private LeaseTableAccess() {
    }

    static Connection connect(DataSource dataSource, String where, String operation) {
        try {
            return dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            throw new LeaseManagerException("Cannot reach the lease database at " + where + " (" + operation + "): "
                    + JdbcUrls.rootMessage(e) + " (check the URL, that the database runs and accepts this user)", e);
        }
    }

    /** What to do about a failed lease statement, from its SQL state and what is missing. */
    static String whatToDo(LeaseTable table, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("08")) {
            return "check that the database runs and accepts connections from this host";
        }
        if (table.isMissingTable(e) || table.isMissingColumn(e) || table.isMissingSequence(e)) {
            return "the lease table or its fence sequence is missing or altered: apply "
                    + LeaseboxSchema.resourcePath(table.kind(), LeaseboxSchema.V3_FILE);
        }
        if (state.startsWith("40")) {
            return "the statement was rolled back and changed nothing; the call can be retried";
        }
        return "check the database's log";
    }

    /** Fails with one line naming what to apply when the lease table or its fence sequence is missing. */
    static void check(LeaseTable leases, Connection c, String where) throws SQLException {
        String v3 = LeaseboxSchema.resourcePath(leases.kind(), LeaseboxSchema.V3_FILE);
        try {
            leases.probeTable(c);
        } catch (SQLException e) {
            if (leases.isMissingTable(e)) {
                throw new LeaseManagerException("Lease table " + leases.leaseTable() + " does not exist at " + where
                        + ": apply " + v3 + " (after " + LeaseboxSchema.V1_FILE + " and " + LeaseboxSchema.V2_FILE
                        + ") with your migration tool or `leasebox schema --apply`; the lease manager never creates "
                        + "tables itself");
            }
            if (leases.isMissingColumn(e)) {
                throw new LeaseManagerException("Lease table " + leases.leaseTable() + " at " + where
                        + " lacks the columns lease_key, owner, fence, expires_at: it was not created by " + v3
                        + "; apply that script's definition of it");
            }
            throw e;
        }
        try {
            leases.probeSequence(c);
        } catch (SQLException e) {
            if (leases.isMissingSequence(e)) {
                throw new LeaseManagerException("Fence sequence " + leases.fenceSequence() + " does not exist at "
                        + where + ": apply " + v3 + " completely (it creates the sequence right after "
                        + leases.leaseTable() + ")");
            }
            throw e;
        }
    }
}
