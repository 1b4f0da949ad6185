package dev.leasebox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.cli.JdbcDataSources;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bench's PostgreSQL or MariaDB database: a schema (MariaDB: a database) of its own per run
 * (dropped at {@link #close()}), and in it a freshly migrated outbox table per measured cell, so that
 * no backend drains a table another one left dead tuples in. The baseline pseudo-backend's statements
 * are PostgreSQL's only.
 */
final class BenchDatabase implements AutoCloseable {

    private final String jdbcUrl;
    private final DatabaseKind kind;
    private final HikariDataSource admin;
    /** The migration that adds the wake-up trigger (PostgreSQL; a marker on MariaDB). */
    private static final int WAKE_UP_TRIGGER = 7;

    private final String schema;
    private final AtomicInteger tables = new AtomicInteger();
    private final int payloadBytes;
    private int fillfactor;

    /** The payload of every row the bench writes unless told otherwise, in bytes. */
    static final int DEFAULT_PAYLOAD_BYTES = 200;

    private BenchDatabase(String jdbcUrl, DatabaseKind kind, HikariDataSource admin, String schema, int payloadBytes) {
        this.jdbcUrl = jdbcUrl;
        this.kind = kind;
        this.admin = admin;
        this.schema = schema;
        this.payloadBytes = payloadBytes;
    }

    /** Connects (failing with one line naming the URL) and creates the run's schema; rows of the default payload. */
    static BenchDatabase open(String jdbcUrl) {
        return open(jdbcUrl, DEFAULT_PAYLOAD_BYTES);
    }

    /** As {@link #open(String)}, every row with a payload of {@code payloadBytes} bytes. */
    static BenchDatabase open(String jdbcUrl, int payloadBytes) {
        DatabaseKind kind = kindOf(jdbcUrl);
        HikariDataSource admin = JdbcDataSources.pooled(jdbcUrl, "", "", 2);
        String schema = "leasebox_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10)
                .toLowerCase(Locale.ROOT);
        try {
            execute(admin, "CREATE SCHEMA " + schema);
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
        return new BenchDatabase(jdbcUrl, kind, admin, schema, payloadBytes);
    }

    /** The database of {@code jdbcUrl}: PostgreSQL or MariaDB, else one line naming --jdbc-url. */
    static DatabaseKind kindOf(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return DatabaseKind.POSTGRESQL;
        }
        if (jdbcUrl.startsWith("jdbc:mariadb:")) {
            return DatabaseKind.MARIADB;
        }
        throw new IllegalArgumentException("--jdbc-url must be a PostgreSQL or MariaDB URL (jdbc:postgresql://… or "
                + "jdbc:mariadb://…), was '" + JdbcDataSources.redact(jdbcUrl) + "': the bench compares against the "
                + "database backend's FOR UPDATE SKIP LOCKED");
    }

    DatabaseKind kind() {
        return kind;
    }

    String schema() {
        return schema;
    }

    /** A new pool of {@code size} connections, as one worker node would have. */
    HikariDataSource newPool(int size) {
        return JdbcDataSources.pooled(jdbcUrl, "", "", size);
    }

    /** Creates and migrates a fresh outbox table in the run's schema, for row leases, without V7's trigger. */
    TableName freshTable() {
        return freshTable(false, false);
    }

    /**
     * A fresh table with V1, V2 and V5, as row leases need it, or with every migration but V7 (partition leases);
     * and V7, the wake-up trigger, for cells with wake-ups on. Row cells run without V3 (the slot and key-order
     * indexes) so that they pay nothing for a feature they do not use; cells with wake-ups off run as a team
     * that turned the trigger off, so their writers pay nothing for it either.
     */
    TableName freshTable(boolean withSlots, boolean wakeUpTrigger) {
        TableName table = new TableName(schema, "outbox_" + tables.incrementAndGet());
        LeaseboxSchema scripts = new LeaseboxSchema(kind, table);
        if (withSlots) {
            scripts.apply(admin, 1, WAKE_UP_TRIGGER - 1);
        } else {
            scripts.apply(admin, 1, 2);
            scripts.apply(admin, 5, 5);
        }
        if (wakeUpTrigger) {
            scripts.apply(admin, WAKE_UP_TRIGGER, WAKE_UP_TRIGGER);
        }
        if (withSlots && LeaseboxSchema.LATEST_VERSION > WAKE_UP_TRIGGER) {
            scripts.apply(admin, WAKE_UP_TRIGGER + 1, LeaseboxSchema.LATEST_VERSION);
        }
        if (fillfactor > 0) {
            execute(admin, "ALTER TABLE " + table.qualified() + " SET (fillfactor = " + fillfactor + ")");
        }
        return table;
    }

    /** Outbox tables get this fillfactor after their migrations; 0 (the default) leaves what the migrations set. */
    BenchDatabase fillfactor(int percent) {
        this.fillfactor = percent;
        return this;
    }

    /** A fresh table of the bare-SQL baseline (baseline_create.sql), not a product table. */
    TableName freshBaselineTable() {
        TableName table = new TableName(schema, "baseline_" + tables.incrementAndGet());
        for (String sql : statement("baseline_create.sql", table).replaceAll("(?m)^--.*$", "").split(";\\s*\\n")) {
            if (!sql.isBlank()) {
                execute(admin, sql);
            }
        }
        return table;
    }

    /** Appends baseline rows numbered {@code first..last} with {@code status}, the payload of every bench row. */
    void fillBaseline(TableName table, String status, long first, long last) {
        try (Connection c = admin.getConnection(); PreparedStatement st = c.prepareStatement(statement("baseline_fill.sql", table))) {
            st.setString(1, status);
            st.setInt(2, payloadBytes);
            st.setLong(3, first);
            st.setLong(4, last);
            st.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("Filling baseline table " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** A baseline statement for {@code table}, its batch size written in. */
    String baselineStatement(String name, TableName table, int batch) {
        return statement(name, table).replace("${batch}", Integer.toString(batch));
    }

    /** Rows DELIVERED in a baseline table. */
    long baselineDelivered(TableName table) {
        try (Connection c = admin.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table.qualified() + " WHERE status = 'DELIVERED'")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Counting DELIVERED rows of " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** Drops a baseline table. */
    void dropBaseline(TableName table) {
        execute(admin, "DROP TABLE IF EXISTS " + table.qualified() + " CASCADE");
        execute(admin, "DROP SEQUENCE IF EXISTS " + table.qualified() + "_token_seq");
    }

    int payloadBytes() {
        return payloadBytes;
    }

    /** Appends PENDING entries numbered {@code first..last} (inclusive) in one statement. */
    void fill(TableName table, long first, long last, Instant createdAt) {
        if (kind == DatabaseKind.MARIADB) {
            String sql = statement("mariadb/fill.sql", table).replace("${first}", Long.toString(first))
                    .replace("${last}", Long.toString(last));
            try (Connection c = admin.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
                st.setInt(1, payloadBytes);
                st.setObject(2, utc(createdAt));
                st.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException("Filling bench table " + table + " failed: " + e.getMessage(), e);
            }
            return;
        }
        String sql = statement("fill.sql", table);
        try (Connection c = admin.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setInt(1, payloadBytes);
            st.setString(2, createdAt.toString());
            st.setLong(3, first);
            st.setLong(4, last);
            st.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("Filling bench table " + table + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Inserts PENDING entries numbered {@code first..last} on {@code connection} (the caller commits), as
     * {@link #fill} writes them, and returns their ids: the latency cells' writer, on a connection of its own.
     */
    java.util.List<Long> insertReturningIds(Connection connection, TableName table, long first, long last, Instant createdAt)
            throws SQLException {
        boolean maria = kind == DatabaseKind.MARIADB;
        String sql = (maria ? statement("mariadb/fill.sql", table).replace("${first}", Long.toString(first))
                .replace("${last}", Long.toString(last)) : statement("fill.sql", table)).strip() + "\nRETURNING id";
        java.util.List<Long> ids = new java.util.ArrayList<>((int) (last - first + 1));
        try (PreparedStatement st = connection.prepareStatement(sql)) {
            st.setInt(1, payloadBytes);
            if (maria) {
                st.setObject(2, utc(createdAt));
            } else {
                st.setString(2, createdAt.toString());
                st.setLong(3, first);
                st.setLong(4, last);
            }
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    /** Appends {@code rows} DELIVERED rows, older than any backlog to come, in one statement (see fill_history.sql). */
    void fillHistory(TableName table, long rows, Instant at) {
        if (rows <= 0) {
            return;
        }
        boolean maria = kind == DatabaseKind.MARIADB;
        String sql = maria ? statement("mariadb/fill_history.sql", table).replace("${last}", Long.toString(rows))
                : statement("fill_history.sql", table);
        try (Connection c = admin.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setInt(1, payloadBytes);
            st.setObject(2, maria ? utc(at) : at.toString());
            st.setObject(3, maria ? utc(at) : at.toString());
            if (!maria) {
                st.setLong(4, rows);
            }
            st.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("Filling the history of bench table " + table + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * VACUUM ANALYZE of a freshly filled table, as autovacuum would have done for a long-lived outbox (a
     * cell lasts seconds, far less than autovacuum's one-minute naptime): the window then measures a table
     * with statistics and a visibility map, the state that degraded the claim plans before V5, not a
     * never-analyzed one. MariaDB: {@code ANALYZE TABLE} (InnoDB purges on its own; there is no VACUUM).
     */
    void analyze(TableName table) {
        execute(admin, (kind == DatabaseKind.MARIADB ? "ANALYZE TABLE " : "VACUUM ANALYZE ") + table.qualified());
    }

    /** Rows DELIVERED in {@code table}. */
    long delivered(TableName table) {
        try (Connection c = admin.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(statement("count_delivered.sql", table))) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Counting DELIVERED rows of " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** A claim as recorded on its row: when it was granted and when it expires (renewals move it). */
    record HeldClaim(long id, Instant claimedAt, Instant expiresAt) {
    }

    /** The rows {@code owner} still holds a claim on, with the claims as recorded. */
    java.util.List<HeldClaim> claimedBy(TableName table, String owner) {
        java.util.List<HeldClaim> claims = new java.util.ArrayList<>();
        try (Connection c = admin.getConnection();
             PreparedStatement st = c.prepareStatement(statement("claimed_by.sql", table))) {
            st.setString(1, owner);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    claims.add(new HeldClaim(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getTimestamp(3).toInstant()));
                }
            }
            return claims;
        } catch (SQLException e) {
            throw new IllegalStateException("Reading the claims of " + owner + " in " + table + " failed: " + e.getMessage(), e);
        }
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    /** Drops a cell's table once measured, keeping the database small during a matrix run. */
    void drop(TableName table) {
        execute(admin, "DROP TABLE IF EXISTS " + table.qualified() + ", " + table.qualified() + "_lease_slots, "
                + table.qualified() + "_workers, " + table.qualified() + "_leases"
                + (kind == DatabaseKind.MARIADB ? "" : " CASCADE"));
        execute(admin, "DROP SEQUENCE IF EXISTS " + table.qualified() + "_claim_token_seq, " + table.qualified()
                + "_lease_fence_seq");
    }

    /** Drops the run's schema and everything in it. */
    @Override
    public void close() {
        try {
            execute(admin, kind == DatabaseKind.MARIADB ? "DROP DATABASE IF EXISTS " + schema
                    : "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } finally {
            admin.close();
        }
    }

    /** {@code at} as a zone-less UTC date-time, as MariaDB's DATETIME columns take it. */
    private static java.time.LocalDateTime utc(Instant at) {
        return java.time.LocalDateTime.ofInstant(at.truncatedTo(java.time.temporal.ChronoUnit.MICROS), java.time.ZoneOffset.UTC);
    }

    private static String statement(String file, TableName table) {
        String path = "db/leasebox/bench/" + file;
        try (InputStream in = BenchDatabase.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("resource " + path + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${table}", table.qualified())
                    .replace("${table_name}", table.table());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void execute(HikariDataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed: " + e.getMessage(), e);
        }
    }
}
