package dev.leasebox.jdbc.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.dialect.SqlDialect;

/**
 * Wakes this JVM's drains of a PostgreSQL outbox table when rows are committed to it, whoever wrote them:
 * V7's trigger sends a {@code NOTIFY} on the table's channel, which PostgreSQL delivers at the commit, and
 * this listener calls each subscriber when one arrives. A notification is a hint: drains still claim through
 * the table, and still poll.
 *
 * <h2>One connection</h2>
 * One listener per {@link DataSource} in the JVM, for every table its drains listen to, on one connection
 * taken from the DataSource and held while any drain listens: {@code LISTEN} belongs to a server session,
 * so that connection is never handed back or used for anything else. Through a pool it occupies one of the
 * pool's connections. Behind a proxy that pools transactions (PgBouncer in transaction mode) a client's
 * statements run on whichever server session is free, so the {@code LISTEN} is registered on one session
 * and the notifications queue there, unread: point the DataSource at the database or at a session-mode pool,
 * or drains fall back to polling.
 *
 * <h2>When notifications are lost</h2>
 * PostgreSQL queues notifications only for sessions listening when they commit. While the connection is
 * down (a restart, a failover, {@code pg_terminate_backend}, a broken network that the next check notices),
 * they are lost. The listener reconnects with a backoff (100 ms doubling to 10 s) and, once listening again,
 * calls every subscriber once: rows committed meanwhile are found by that cycle, or by the drains' poll.
 *
 * <h2>Statements</h2>
 * Waiting issues none (the driver reads the socket). The session shows in {@code pg_stat_activity} with
 * {@code application_name} {@value #APPLICATION_NAME}. Every 30 s the listener reads the trigger's state, one
 * catalog query that also proves the connection alive; a read that hangs fails after 15 s (the connection's
 * network timeout) and the listener reconnects.
 */
public final class PostgreSqlCommitListener {

    private static final Logger log = LoggerFactory.getLogger(PostgreSqlCommitListener.class);

    /** The V7 trigger's name after the table's: {@code <table>_wake_up}. */
    public static final String TRIGGER_SUFFIX = "_wake_up";

    private static final String TRIGGER_STATE = "db/leasebox/statements/postgresql/wake_up_trigger.sql";
    /**
     * How long one wait for notifications blocks: a wait only reads the socket (it sends nothing to the
     * server), and stopping the listener waits for the wait in progress, so closing a drain takes up to this long.
     */
    private static final int WAIT_MILLIS = 100;
    private static final Duration CHECK_EVERY = Duration.ofSeconds(30);
    private static final Duration RETRY_FIRST = Duration.ofMillis(100);
    private static final Duration RETRY_MAX = Duration.ofSeconds(10);
    private static final int NETWORK_TIMEOUT_MILLIS = 15_000;
    private static final int MAX_CHANNEL_BYTES = 63;

    /** The listener's session in {@code pg_stat_activity}. */
    public static final String APPLICATION_NAME = "leasebox-commit-listener";

    private static final Map<DataSource, PostgreSqlCommitListener> LISTENERS = new IdentityHashMap<>(); // guarded by the class

    private final DataSource dataSource;
    private final Map<String, TableWatch> watches = new ConcurrentHashMap<>();
    private final List<String> dropped = new CopyOnWriteArrayList<>(); // channels to UNLISTEN
    private final Object stopMonitor = new Object();
    private volatile boolean stopped;
    private volatile boolean connected;
    private String where; // the listener thread's only

    private final Thread thread;

    private PostgreSqlCommitListener(DataSource dataSource) {
        this.dataSource = dataSource;
        this.thread = new Thread(this::run, "leasebox-commit-listener");
        this.thread.setDaemon(true);
    }

    /**
     * Calls {@code onCommit} whenever rows are committed to {@code table} in the database of {@code dataSource},
     * and once each time the listener starts listening (at first, and after every reconnection), until the
     * subscription is closed. Starts the DataSource's listener if none runs; never throws for an unreachable
     * database (the listener keeps trying). {@code onCommit} runs on the listener's thread and must be quick.
     */
    public static Subscription subscribe(DataSource dataSource, TableName table, Runnable onCommit) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(onCommit, "onCommit");
        PostgreSqlCommitListener listener;
        TableWatch watch;
        synchronized (PostgreSqlCommitListener.class) {
            listener = LISTENERS.get(dataSource);
            if (listener == null) {
                listener = new PostgreSqlCommitListener(dataSource);
                LISTENERS.put(dataSource, listener);
                listener.thread.start();
            }
            watch = listener.watches.computeIfAbsent(key(table), k -> new TableWatch(table));
            watch.subscribers.add(onCommit);
        }
        PostgreSqlCommitListener owner = listener;
        TableWatch watched = watch;
        return new Subscription() {
            @Override
            public boolean live() {
                return owner.connected && watched.listening && watched.firing;
            }

            @Override
            public void close() {
                if (unsubscribe(owner, watched, onCommit)) {
                    owner.stop();
                }
            }
        };
    }

    /** True when {@code listener} has no table left and must stop; it is out of the registry then. */
    private static synchronized boolean unsubscribe(PostgreSqlCommitListener listener, TableWatch watch, Runnable onCommit) {
        if (!watch.subscribers.remove(onCommit) || !watch.subscribers.isEmpty()) {
            return false;
        }
        listener.watches.remove(key(watch.table), watch);
        String channel = watch.channel;
        if (channel != null) {
            listener.dropped.add(channel);
        }
        if (!listener.watches.isEmpty()) {
            return false;
        }
        LISTENERS.remove(listener.dataSource, listener);
        return true;
    }

    /** A table's subscription; {@link #close()} twice is harmless. */
    public interface Subscription extends AutoCloseable {

        /**
         * Whether commits to the table reach the subscriber now: the listener listens and the table's trigger is
         * enabled. While false, the subscriber should take hints from elsewhere.
         */
        boolean live();

        @Override
        void close();
    }

    /**
     * The channel of a table's notifications: {@code leasebox:<schema>.<table>} with the catalog's names, or
     * {@code leasebox:} and the md5 of {@code <schema>.<table>} when that is longer than 63 bytes, exactly as
     * V7's trigger function names it.
     */
    public static String channel(String schema, String table) {
        String relation = schema + "." + table;
        String plain = "leasebox:" + relation;
        if (plain.getBytes(StandardCharsets.UTF_8).length <= MAX_CHANNEL_BYTES) {
            return plain;
        }
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            return "leasebox:" + HexFormat.of().formatHex(md5.digest(relation.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JVM", e);
        }
    }

    /** Whether {@code table} has V7's trigger, enabled or not. */
    public static boolean hasTrigger(Connection connection, TableName table) throws SQLException {
        return triggerState(connection, table).map(state -> state.trigger() != null).orElse(false);
    }

    /** The table's catalog names and its trigger's {@code tgenabled}; empty when there is no such table. */
    private static Optional<TriggerState> triggerState(Connection connection, TableName table) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SqlDialect.resource(TRIGGER_STATE))) {
            ps.setString(1, table.table().toLowerCase(Locale.ROOT) + TRIGGER_SUFFIX);
            ps.setString(2, table.qualified());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new TriggerState(rs.getString(1), rs.getString(2), rs.getString(3)))
                        : Optional.empty();
            }
        }
    }

    private record TriggerState(String schema, String table, String trigger) {
        /** Fires for ordinary sessions: enabled ('O') or enabled always ('A'). */
        boolean fires() {
            return "O".equals(trigger) || "A".equals(trigger);
        }
    }

    private static String key(TableName table) {
        return table.qualified().toLowerCase(Locale.ROOT);
    }

    /** Where the DataSource connects, for logs; read once (it may take a connection to find out). */
    private String where() {
        if (where == null) {
            where = JdbcUrls.describe(dataSource);
        }
        return where;
    }

    /** Stops listening and waits (about {@value #WAIT_MILLIS} ms at most) until the connection is handed back. */
    private void stop() {
        synchronized (stopMonitor) {
            stopped = true;
            stopMonitor.notifyAll();
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        Duration retry = RETRY_FIRST;
        boolean failing = false;
        while (!stopped) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true); // notifications are read only outside a transaction
                connection.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
                Notifications notifications = Notifications.of(connection);
                execute(connection, "SET application_name = '" + APPLICATION_NAME + "'"); // for pg_stat_activity
                retry = RETRY_FIRST;
                if (failing) {
                    log.info("Listening for outbox commits again at {}", where());
                    failing = false;
                }
                try {
                    listen(connection, notifications);
                } finally {
                    resetApplicationName(connection);
                }
            } catch (LinkageError | UnsupportedOperationException e) {
                log.warn("Outbox commit notifications need the PostgreSQL JDBC driver (org.postgresql), which {} does not "
                        + "use: its drains are woken only by Leasebox writers and otherwise poll", where());
                return;
            } catch (SQLException | RuntimeException e) {
                if (!stopped && !failing) {
                    log.warn("Listening for outbox commits at {} failed ({}): drains poll until the listener reconnects, "
                            + "retrying with backoff", where(), JdbcUrls.rootMessage(e));
                    failing = true;
                }
            } finally {
                connected = false;
                watches.values().forEach(TableWatch::disconnected);
                dropped.clear();
            }
            pause(retry);
            retry = retry.multipliedBy(2).compareTo(RETRY_MAX) > 0 ? RETRY_MAX : retry.multipliedBy(2);
        }
    }

    /** Listens on {@code connection} until stopped or until it fails. */
    private void listen(Connection connection, Notifications notifications) throws SQLException {
        connected = true;
        long nextCheck = System.nanoTime();
        while (!stopped) {
            boolean check = System.nanoTime() - nextCheck >= 0;
            if (check) {
                nextCheck = System.nanoTime() + CHECK_EVERY.toNanos();
            }
            for (String channel : dropped) {
                execute(connection, "UNLISTEN " + quoted(channel));
                dropped.remove(channel);
            }
            for (TableWatch watch : watches.values()) {
                if (check || watch.unresolved) {
                    resolve(connection, watch);
                }
                if (!watch.listening && watch.channel != null) {
                    execute(connection, "LISTEN " + quoted(watch.channel));
                    watch.listening = true;
                    watch.wake(); // commits before now were not heard: look once
                }
            }
            for (String channel : notifications.await(WAIT_MILLIS)) {
                for (TableWatch watch : watches.values()) {
                    if (channel.equals(watch.channel)) {
                        watch.wake();
                    }
                }
            }
        }
    }

    private void resolve(Connection connection, TableWatch watch) throws SQLException {
        watch.unresolved = false;
        Optional<TriggerState> state = triggerState(connection, watch.table);
        String channel = state.map(s -> channel(s.schema(), s.table())).orElse(null);
        if (!Objects.equals(channel, watch.channel)) {
            if (watch.listening) {
                dropped.add(watch.channel);
                watch.listening = false;
            }
            watch.channel = channel;
        }
        boolean fires = state.map(TriggerState::fires).orElse(false);
        if (fires != watch.firing || !watch.reported) {
            watch.reported = true;
            if (fires) {
                log.info("Drains of outbox table {} wake at commit (LISTEN {})", watch.table, quoted(channel));
            } else {
                log.info("Outbox table {} {}: its drains are woken only by Leasebox writers and otherwise poll",
                        watch.table, state.isEmpty() ? "was not found" : state.get().trigger() == null
                                ? "has no wake-up trigger (apply V7)" : "has its wake-up trigger disabled");
            }
        }
        watch.firing = fires;
    }

    /** A pool may hand the connection out again: leave it as it came. */
    private static void resetApplicationName(Connection connection) {
        try {
            if (!connection.isClosed()) {
                execute(connection, "RESET application_name");
            }
        } catch (SQLException | RuntimeException e) {
            // the connection failed: the pool discards it
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (var statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** A channel as a quoted identifier. */
    public static String quoted(String channel) {
        return channel == null ? "(none)" : '"' + channel.replace("\"", "\"\"") + '"';
    }

    private void pause(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (stopMonitor) {
            long left;
            while (!stopped && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(stopMonitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One table's subscribers and what the listener knows of it on its current connection. */
    private static final class TableWatch {
        final TableName table;
        final List<Runnable> subscribers = new CopyOnWriteArrayList<>();
        volatile String channel;
        volatile boolean unresolved = true;
        volatile boolean listening;
        volatile boolean firing;
        boolean reported; // the listener thread's only

        TableWatch(TableName table) {
            this.table = table;
        }

        void wake() {
            for (Runnable subscriber : subscribers) {
                try {
                    subscriber.run();
                } catch (RuntimeException e) {
                    log.warn("A commit subscriber of outbox table {} failed: {}", table, e.toString());
                }
            }
        }

        void disconnected() {
            listening = false;
            unresolved = true;
        }
    }

    /** The driver's notification API, in a class of its own: loaded only once a PostgreSQL connection is open. */
    private static final class Notifications {
        private final org.postgresql.PGConnection pg;

        private Notifications(org.postgresql.PGConnection pg) {
            this.pg = pg;
        }

        /** @throws UnsupportedOperationException when the connection is not the PostgreSQL driver's */
        static Notifications of(Connection connection) throws SQLException {
            if (!connection.isWrapperFor(org.postgresql.PGConnection.class)) {
                throw new UnsupportedOperationException(connection.getClass().getName());
            }
            return new Notifications(connection.unwrap(org.postgresql.PGConnection.class));
        }

        /** The channels of the notifications that arrive within {@code millis} (none: empty). */
        List<String> await(int millis) throws SQLException {
            org.postgresql.PGNotification[] received = pg.getNotifications(millis);
            if (received == null || received.length == 0) {
                return List.of();
            }
            return Arrays.stream(received).map(org.postgresql.PGNotification::getName).distinct().toList();
        }
    }
}
