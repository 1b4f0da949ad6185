package dev.leasebox.jdbc.dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import dev.leasebox.jdbc.store.QueueHead;

/**
 * PostgreSQL: a read of the claim queue from a given id on ({@link QueueHead}), with its plan pinned to
 * the one that makes it cheap: the claim-queue index walked in id order from that id, stopping at the
 * batch.
 *
 * <p>Why pinned: {@code id >= from} is a range the planner estimates, and it estimates it badly for a
 * queue. Status and id are correlated (the pending rows are the newest), the planner multiplies their
 * selectivities as if they were not, and on a table never analyzed it takes a third of an unknown. With
 * an outbox of millions of delivered rows and thousands pending, or a young table, it expects fewer rows
 * than the batch and prefers a bitmap scan of every row from {@code from} on, then a sort: the whole
 * backlog read for every batch. So the statement runs in a transaction of its own with
 * {@code enable_bitmapscan} and {@code enable_sort} off for that transaction only, sent with it in one
 * round trip: {@code BEGIN; SET LOCAL …; SET LOCAL …; <statement>; COMMIT}. Nothing else changes in the
 * session; a failure rolls the transaction back before the connection is handed back.
 * ({@code PostgreSqlClaimPlanIT} holds the claim and the candidate read to that plan on a table never
 * analyzed, analyzed, and 60 % finalized with statistics from before.)
 */
public final class QueueScan {

    /** What the statement's transaction sets, for it alone. */
    public static final java.util.List<String> SETTINGS = java.util.List.of(
            "SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off");
    private static final String PREFIX = "BEGIN; " + String.join("; ", SETTINGS) + ";\n";
    private static final String SUFFIX = "\n;\nCOMMIT";

    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    @FunctionalInterface
    interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private QueueScan() {
    }

    /** {@code statement} (one statement returning rows) wrapped so that it runs with the pinned plan. */
    static String pinned(String statement) {
        return PREFIX + statement + SUFFIX;
    }

    /** Runs {@link #pinned} {@code statement} on {@code c} (in auto-commit mode) and reads its rows. */
    static <T> T query(Connection c, String pinnedStatement, Binder binder, Reader<T> reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(pinnedStatement)) {
            binder.bind(ps);
            boolean isResultSet = ps.execute();
            T result = null;
            boolean read = false;
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        if (!read) {
                            result = reader.read(rs);
                            read = true;
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    break;
                }
                isResultSet = ps.getMoreResults();
            }
            if (!read) {
                throw new SQLException("the claim-queue statement returned no rows result");
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            rollBack(c, e);
            throw e;
        }
    }

    /** After a failure the transaction the statement opened is still open (aborted): end it. */
    private static void rollBack(Connection c, Exception cause) {
        try (Statement st = c.createStatement()) {
            st.execute("ROLLBACK");
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
