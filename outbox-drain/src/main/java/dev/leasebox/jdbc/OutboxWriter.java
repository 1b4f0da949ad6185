package dev.leasebox.jdbc;

import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.wakeup.LocalWakeUps;
import dev.leasebox.wakeup.WakeUp;
import dev.leasebox.wakeup.WakeUpPublisher;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes outbox entries, above all inside the caller's own business transaction: the entry
 * becomes visible to the drain exactly when the caller commits, and disappears with a rollback.
 *
 * <p>Guarantees: {@link #enqueue(Connection, OutboxMessage)} runs one INSERT on the given
 * connection and never commits, rolls back, closes it or changes its auto-commit mode. A duplicate
 * idempotency key fails with {@link IllegalArgumentException}; on PostgreSQL a failed statement
 * also aborts the caller's transaction, as any failed statement does. The creation time is the
 * injected {@link Clock}'s.
 *
 * <p>The SQL is the database's behind each connection, read from its JDBC metadata before the INSERT: one
 * writer serves PostgreSQL, MariaDB and H2 alike, and a connection to any other database is refused before
 * anything is written.
 *
 * <h2>Wake-ups</h2>
 * After an entry is written the writer wakes the drains of its table in this JVM ({@link LocalWakeUps}), and,
 * given a coordinator's channel ({@link #wakeUpsThrough}), those of other processes. It cannot see the
 * caller's commit: {@link #enqueue(DataSource, OutboxMessage)} and a connection in auto-commit mode say
 * {@link WakeUp#COMMITTED}; an entry written in the caller's transaction says {@link WakeUp#COMMIT_PENDING},
 * on which drains look a few times within about 150 ms (a commit later than that waits for their poll),
 * unless the caller reports its commit with {@link #committed()}. On PostgreSQL the table's V7 trigger
 * wakes listening drains at the commit itself, whoever wrote. Hints never change what a drain claims.
 */
public final class OutboxWriter {

    private final TableName table;
    private final Clock clock;
    private final WakeUpPublisher publisher;
    private final Map<DatabaseKind, SqlDialect> dialects;

    /** A writer whose SQL for {@code dialect}'s database is {@code dialect} itself (a store's writer). */
    OutboxWriter(SqlDialect dialect, Clock clock) {
        this(dialect.table(), clock, null, new ConcurrentHashMap<>(Map.of(dialect.kind(), dialect)));
    }

    private OutboxWriter(TableName table, Clock clock, WakeUpPublisher publisher, Map<DatabaseKind, SqlDialect> dialects) {
        this.table = Objects.requireNonNull(table, "table");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.publisher = publisher;
        this.dialects = dialects;
    }

    /** A writer of the table {@code table}, in whichever supported database a connection reaches; "now" from {@code clock}. */
    public static OutboxWriter of(TableName table, Clock clock) {
        return new OutboxWriter(table, clock, null, new ConcurrentHashMap<>());
    }

    /**
     * This writer, also waking the drains of other processes through {@code channel} (the coordinator the
     * drains lease from: Redis pub/sub, a ZooKeeper node, a Hazelcast topic).
     */
    public OutboxWriter wakeUpsThroughChannel(WakeUpChannel channel) {
        return new OutboxWriter(table, clock, new WakeUpPublisher(channel, table.qualified()), dialects);
    }

    /**
     * This writer, also waking the drains of other processes through {@code manager}'s channel where it
     * offers one ({@link LeaseManager#as(Class)}); this writer itself where it does not (the database backend).
     */
    public OutboxWriter wakeUpsThrough(LeaseManager manager) {
        return manager.as(WakeUpChannel.class).map(this::wakeUpsThroughChannel).orElse(this);
    }

    /**
     * Adds a PENDING entry within the caller's transaction on {@code connection}, then wakes the table's
     * drains: {@link WakeUp#COMMITTED} when the connection is in auto-commit mode, else
     * {@link WakeUp#COMMIT_PENDING}.
     */
    public OutboxEntry enqueue(Connection connection, OutboxMessage message) {
        OutboxEntry entry = insert(connection, message);
        signal(autoCommit(connection) ? WakeUp.COMMITTED : WakeUp.COMMIT_PENDING);
        return entry;
    }

    /**
     * Tells the table's drains that a transaction which enqueued entries committed: for a caller that owns
     * its commit and wants the drains to look at once (a Spring {@code afterCommit} callback, say).
     */
    public void committed() {
        signal(WakeUp.COMMITTED);
    }

    private OutboxEntry insert(Connection connection, OutboxMessage message) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(message, "message");
        SqlDialect dialect = dialectOf(connection);
        try {
            return dialect.insert(connection, message, clock.instant());
        } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
                throw new IllegalArgumentException("an outbox entry with idempotency key " + message.idempotencyKey()
                        + " exists already in " + table, e);
            }
            throw new JdbcOutboxException("Enqueue into outbox table " + table + " failed: "
                    + JdbcUrls.rootMessage(e), e);
        }
    }

    /** The SQL of the database {@code connection} reaches; an unsupported database is refused before any write. */
    private SqlDialect dialectOf(Connection connection) {
        DatabaseKind kind;
        try {
            kind = DatabaseKind.of(connection);
        } catch (SQLException e) {
            throw new JdbcOutboxException("Enqueue into outbox table " + table + " failed before writing: the "
                    + "connection's metadata, which says which database it reaches, cannot be read: "
                    + JdbcUrls.rootMessage(e), e);
        }
        return dialects.computeIfAbsent(kind, k -> SqlDialect.of(k, table));
    }

    /**
     * Adds a PENDING entry in a transaction of its own, on a connection from {@code dataSource}, and after the
     * commit wakes the table's drains ({@link WakeUp#COMMITTED}).
     */
    public OutboxEntry enqueue(DataSource dataSource, OutboxMessage message) {
        OutboxEntry entry;
        try (Connection c = dataSource.getConnection()) {
            entry = insert(c, message);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new JdbcOutboxException("Enqueue into outbox table " + table + " at "
                    + JdbcUrls.describe(dataSource) + " failed: " + JdbcUrls.rootMessage(e), e);
        }
        signal(WakeUp.COMMITTED);
        return entry;
    }

    private static boolean autoCommit(Connection connection) {
        try {
            return connection.getAutoCommit();
        } catch (SQLException e) {
            return false; // the safe guess: a pending commit makes drains look a few times, not once
        }
    }

    private void signal(WakeUp hint) {
        LocalWakeUps.signal(table.qualified(), hint);
        if (publisher != null) {
            publisher.publish(hint);
        }
    }
}
