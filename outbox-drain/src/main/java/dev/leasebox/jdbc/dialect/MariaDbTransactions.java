package dev.leasebox.jdbc.dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * How MariaDB's multi-statement operations run (it has neither arrays nor {@code UPDATE … RETURNING}):
 * in one transaction, retried whole when InnoDB picks it as a deadlock victim, with rows taken in
 * primary-key order, and id lists spelled as one {@code ?} per element.
 */
public final class MariaDbTransactions {

    /** ER_LOCK_DEADLOCK. */
    private static final int DEADLOCK = 1213;
    private static final int DEADLOCK_ATTEMPTS = 3;

    private MariaDbTransactions() {
    }

    @FunctionalInterface
    public interface SqlAction<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} in a transaction of its own when {@code c} is in auto-commit mode (committed, or
     * rolled back on failure, auto-commit restored), else inside the caller's transaction.
     */
    public static <T> T transaction(Connection c, SqlAction<T> work) throws SQLException {
        return transaction(c, null, work);
    }

    /**
     * As {@link #transaction(Connection, SqlAction)}; {@code begin} (or null) runs first in a transaction of its own.
     * A commit that fails (the connection lost while committing) is reported as {@code commit outcome
     * unknown}: the server may have applied the transaction or not, and the rollback that follows on the
     * dead connection says nothing about it (its failure is attached as suppressed).
     */
    public static <T> T transaction(Connection c, String begin, SqlAction<T> work) throws SQLException {
        if (!c.getAutoCommit()) {
            return work.run();
        }
        c.setAutoCommit(false);
        Exception failure = null;
        try {
            for (int attempt = 1; ; attempt++) {
                T result;
                try {
                    if (begin != null) {
                        try (Statement st = c.createStatement()) {
                            st.execute(begin);
                        }
                    }
                    result = work.run();
                } catch (SQLException e) {
                    failure = e;
                    rollback(c, e);
                    if (e.getErrorCode() != DEADLOCK || attempt == DEADLOCK_ATTEMPTS) {
                        throw e;
                    }
                    // InnoDB chose this transaction as a deadlock victim and rolled it back whole: nothing
                    // was written, and every statement is a conditional write, so running it again is safe.
                    failure = null;
                    continue;
                } catch (RuntimeException e) {
                    failure = e;
                    rollback(c, e);
                    throw e;
                }
                try {
                    c.commit();
                } catch (SQLException e) {
                    SQLException unknown = new SQLException("commit outcome unknown: the connection failed while "
                            + "committing, so the transaction may or may not have been applied (" + e.getMessage() + ")",
                            e.getSQLState(), e.getErrorCode(), e);
                    failure = unknown;
                    rollback(c, unknown);
                    throw unknown;
                }
                return result;
            }
        } finally {
            try {
                c.setAutoCommit(true);
            } catch (SQLException restore) {
                // A lost connection cannot be restored (the pool discards it): what failed before is the news.
                if (failure == null) {
                    throw restore;
                }
                failure.addSuppressed(restore);
            }
        }
    }

    /** Rolls back after {@code cause}; a rollback that fails too (a lost connection) is attached to it. */
    private static void rollback(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * {@code elements} in ascending row id (stable): every multi-row transaction locks rows in primary-key
     * order, so two of them never wait for each other in a cycle.
     */
    static <T> List<T> byId(Collection<T> elements, ToLongFunction<T> id) {
        List<T> sorted = new ArrayList<>(elements);
        sorted.sort(Comparator.comparingLong(id));
        return sorted;
    }

    /** {@code count} parameters, comma-separated: an {@code IN (…)} list for {@code count} values. */
    public static String placeholders(int count) {
        StringBuilder out = new StringBuilder(count * 3);
        for (int i = 0; i < count; i++) {
            out.append(i == 0 ? "?" : ", ?");
        }
        return out.toString();
    }

    /** Binds {@code values} from {@code index} on; the next index. */
    static int bindLongs(PreparedStatement ps, int index, Collection<? extends Number> values) throws SQLException {
        for (Number value : values) {
            ps.setLong(index++, value.longValue());
        }
        return index;
    }
}
