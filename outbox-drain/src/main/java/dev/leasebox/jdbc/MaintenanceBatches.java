package dev.leasebox.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import dev.leasebox.jdbc.dialect.EntryRows;

/**
 * The statements {@link OutboxMaintenance} runs on one connection: counts, the database's clock and
 * highest fence, and changes made a batch of ids at a time, each batch re-checking its condition in
 * the statement that changes it.
 */
final class MaintenanceBatches {

    private final MaintenanceStatements sql;

    MaintenanceBatches(MaintenanceStatements sql) {
        this.sql = sql;
    }

    interface BatchStatement {
        String text(int ids, String where);
    }

    /** Selects the next batch of matching ids above the last one done, changes those still matching, repeats. */
    long inBatches(Connection c, Where where, int batchSize, long doneBefore, LongConsumer progress,
                   BatchStatement statement) throws SQLException {
        long done = doneBefore;
        long after = Long.MIN_VALUE;
        while (true) {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.nextIds(where.sql, batchSize))) {
                int i = bind(ps, 1, where.params);
                ps.setLong(i, after);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            if (ids.isEmpty()) {
                return done;
            }
            after = ids.get(ids.size() - 1);
            try (PreparedStatement ps = c.prepareStatement(statement.text(ids.size(), where.sql))) {
                int i = bind(ps, 1, ids);
                bind(ps, i, where.params);
                done += ps.executeUpdate();
            }
            progress.accept(done);
            if (ids.size() < batchSize) {
                return done;
            }
        }
    }

    long count(Connection c, Where where) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.count(where.sql))) {
            bind(ps, 1, where.params);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    long highestFence(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.highestFence()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    Instant databaseNow(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.databaseNow()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            Timestamp now = rs.getTimestamp(1);
            return now.toInstant();
        }
    }

    private static int bind(PreparedStatement ps, int index, List<?> params) throws SQLException {
        for (Object p : params) {
            if (p instanceof Long l) {
                ps.setLong(index++, l);
            } else if (p instanceof String s) {
                ps.setString(index++, s);
            } else if (p instanceof Instant t) {
                EntryRows.setInstant(ps, index++, t);
            } else {
                throw new IllegalArgumentException("cannot bind " + p);
            }
        }
        return index;
    }

    /** A condition and its parameters, in order. */
    record Where(String sql, List<Object> params) {
        static Where of(String sql, List<?> params) {
            return new Where(sql, List.copyOf(params));
        }

        Where and(String condition) {
            return new Where(sql + " AND " + condition, params);
        }

        Where and(String condition, List<?> more) {
            List<Object> all = new ArrayList<>(params);
            all.addAll(more);
            return new Where(sql + " AND " + condition, all);
        }
    }
}
