package dev.leasebox.jdbc;

import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Objects;

/**
 * Writes outbox entries, above all inside the caller's own business transaction: the entry
 * becomes visible to the drain exactly when the caller commits, and disappears with a rollback.
 *
 * <p>Guarantees: {@link #enqueue(Connection, OutboxMessage)} runs one INSERT on the given
 * connection and never commits, rolls back, closes it or changes its auto-commit mode. A duplicate
 * idempotency key fails with {@link IllegalArgumentException}; on PostgreSQL a failed statement
 * also aborts the caller's transaction, as any failed statement does. The creation time is the
 * injected {@link Clock}'s.
 */
public final class OutboxWriter {

    private final SqlDialect dialect;
    private final Clock clock;

    OutboxWriter(SqlDialect dialect, Clock clock) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A writer for {@code kind}'s table {@code table}; "now" from {@code clock}. */
    public static OutboxWriter of(DatabaseKind kind, TableName table, Clock clock) {
        return new OutboxWriter(SqlDialect.of(kind, table), clock);
    }

    /** Adds a PENDING entry within the caller's transaction on {@code connection}. */
    public OutboxEntry enqueue(Connection connection, OutboxMessage message) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(message, "message");
        try {
            return dialect.insert(connection, message, clock.instant());
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
                throw new IllegalArgumentException("an outbox entry with idempotency key " + message.idempotencyKey()
                        + " exists already in " + dialect.table(), e);
            }
            throw new JdbcOutboxException("Enqueue into outbox table " + dialect.table() + " failed: "
                    + JdbcUrls.rootMessage(e), e);
        }
    }

    /** Adds a PENDING entry in a transaction of its own, on a connection from {@code dataSource}. */
    public OutboxEntry enqueue(DataSource dataSource, OutboxMessage message) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                OutboxEntry entry = enqueue(c, message);
                c.commit();
                return entry;
            }
            return enqueue(c, message);
        } catch (SQLException e) {
            throw new JdbcOutboxException("Enqueue into outbox table " + dialect.table() + " at "
                    + JdbcUrls.describe(dataSource) + " failed: " + JdbcUrls.rootMessage(e), e);
        }
    }
}
