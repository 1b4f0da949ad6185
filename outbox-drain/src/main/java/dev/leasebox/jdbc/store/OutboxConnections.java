package dev.leasebox.jdbc.store;

import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.outbox.OutboxEntry;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a {@link JdbcOutboxStore} reaches its table: each piece of work on a connection of its own in
 * auto-commit mode (each statement atomic by itself, no transaction spanning two), and every failure
 * reported as one {@link JdbcOutboxException} naming the operation, the table and the database.
 */
final class OutboxConnections {

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final String where;

    OutboxConnections(DataSource dataSource, SqlDialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.where = JdbcUrls.describe(dataSource);
    }

    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    @FunctionalInterface
    interface SqlAction<T> {
        T run() throws SQLException;
    }

    <T> T run(String what, SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new JdbcOutboxException("Outbox " + what + " on " + dialect.table() + " at " + where + " failed: "
                    + JdbcUrls.rootMessage(e), e);
        }
    }

    /** The rows with {@code ids} that still exist, by id: what a refusal is explained from. */
    Map<Long, OutboxEntry> readRows(List<Long> ids) {
        Map<Long, OutboxEntry> rows = new HashMap<>();
        run("read refused rows", c -> dialect.findByIds(c, ids)).forEach(e -> rows.put(e.id(), e));
        return rows;
    }

    /** Runs {@code action} in a transaction of its own that commits without waiting for durability. */
    <T> T withoutDurability(Connection c, SqlAction<T> action) throws SQLException {
        c.setAutoCommit(false);
        try {
            dialect.relaxCommitDurability(c);
            T result = action.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }
}
