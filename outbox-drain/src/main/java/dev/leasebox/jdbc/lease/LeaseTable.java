package dev.leasebox.jdbc.lease;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.dialect.EntryRows;
import dev.leasebox.jdbc.dialect.H2Dialect;
import dev.leasebox.jdbc.dialect.MariaDbDialect;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.lease.Lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The JDBC of {@link JdbcLeaseManager}: the V3 {@code <table>_leases} table and its fence sequence,
 * through the {@code lease_*.sql} statements of one database (loaded like every other statement, by
 * {@link SqlDialect#sql}). Both databases take the same parameters in the same order; each method
 * below runs exactly one statement unless it says otherwise.
 *
 * <p>On H2 every lease statement of one database and table runs under one lock within this JVM
 * (where an embedded H2 database lives), as {@link H2Dialect} does for claims: H2's MERGE takes no
 * lock that would make two concurrent grants of a new key wait for each other instead of failing,
 * and the per-key fence order relies on grants not interleaving there.
 */
final class LeaseTable {

    /** A lease row as a statement returned it. */
    record Row(String key, String owner, long fence) {
        static Row of(Lease lease) {
            return new Row(lease.key(), lease.owner(), lease.fence());
        }
    }

    @FunctionalInterface
    interface SqlWork<T> {
        T run() throws SQLException;
    }

    private static final ConcurrentMap<String, Object> H2_LOCKS = new ConcurrentHashMap<>();

    private final SqlDialect dialect;
    /** The per-key statements on MariaDB, null elsewhere. */
    private final MariaDbLeaseTable mariaDb;

    LeaseTable(SqlDialect dialect) {
        this.dialect = dialect;
        this.mariaDb = dialect instanceof MariaDbDialect m ? new MariaDbLeaseTable(m) : null;
    }

    DatabaseKind kind() {
        return dialect.kind();
    }

    /** {@code <table>_leases}, as it goes into SQL and messages. */
    String leaseTable() {
        return dialect.table().qualified() + "_leases";
    }

    /** {@code <table>_lease_fence_seq}. */
    String fenceSequence() {
        return dialect.table().qualified() + "_lease_fence_seq";
    }

    /** Fails when the lease table is missing (or lacks a column). */
    void probeTable(Connection c) throws SQLException {
        dialect.probe(c, "lease_probe_table");
    }

    /** Fails when the fence sequence is missing. */
    void probeSequence(Connection c) throws SQLException {
        dialect.probe(c, "lease_probe_sequence");
    }

    boolean isMissingTable(SQLException e) {
        return dialect.isMissingTable(e);
    }

    boolean isMissingColumn(SQLException e) {
        return dialect.isMissingColumn(e);
    }

    /** Whether {@code e} says the fence sequence does not exist. */
    boolean isMissingSequence(SQLException e) {
        // PostgreSQL: a sequence is a relation (42P01); H2: 90036 sequence not found.
        return dialect.isMissingTable(e) || kind() == DatabaseKind.H2 && e.getErrorCode() == 90036;
    }

    /** Grants the free keys among {@code keys} to {@code owner}; key to fence of each grant. */
    Map<String, Long> acquire(Connection c, List<String> keys, String owner, Instant expiresAt, long ttlMillis,
                              Instant now) throws SQLException {
        if (mariaDb != null) {
            return mariaDb.acquire(c, keys, owner, expiresAt, ttlMillis, now);
        }
        return serialized(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_acquire"))) {
                ps.setString(1, owner);
                EntryRows.setInstant(ps, 2, expiresAt);
                ps.setLong(3, ttlMillis);
                ps.setArray(4, c.createArrayOf(textType(), keys.toArray()));
                EntryRows.setInstant(ps, 5, now);
                Map<String, Long> granted = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        granted.put(rs.getString(1), rs.getLong(2));
                    }
                }
                return granted;
            }
        });
    }

    /** Those of {@code keys} whose lease is unexpired at {@code now}. Reads only. */
    Set<String> held(Connection c, List<String> keys, Instant now) throws SQLException {
        if (mariaDb != null) {
            return mariaDb.held(c, keys, now);
        }
        try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_held"))) {
            ps.setArray(1, c.createArrayOf(textType(), keys.toArray()));
            EntryRows.setInstant(ps, 2, now);
            Set<String> held = new java.util.HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    held.add(rs.getString(1));
                }
            }
            return held;
        }
    }

    /**
     * Moves the expiry of each lease still held to {@code expiries[i]}, or (a null expiry) to the database's now
     * plus the lease's ttl; the rows renewed.
     */
    Set<Row> renew(Connection c, List<Lease> leases, List<Instant> expiries, Instant now) throws SQLException {
        if (mariaDb != null) {
            return mariaDb.renew(c, leases, expiries, now);
        }
        return serialized(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_renew"))) {
                int i = bindLeases(c, ps, leases);
                ps.setArray(i++, c.createArrayOf(textType(), expiries.stream().map(EntryRows::text).toArray()));
                ps.setArray(i++, c.createArrayOf(dialect.idArrayType(), leases.stream().map(l -> l.ttl().toMillis()).toArray()));
                EntryRows.setInstant(ps, i, now);
                return rows(ps);
            }
        });
    }

    /** Expires each lease still held at once; the rows released. */
    Set<Row> release(Connection c, List<Lease> leases, Instant now) throws SQLException {
        if (mariaDb != null) {
            return mariaDb.release(c, leases, now);
        }
        return serialized(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_release"))) {
                int i = bindLeases(c, ps, leases);
                EntryRows.setInstant(ps, i, now);
                return rows(ps);
            }
        });
    }

    /**
     * Makes the sequence's next value greater than {@code floor}, never moving it back; whether it
     * had to move. Two statements in one transaction on PostgreSQL (the exclusive advisory lock, then
     * the conditional {@code setval}); two statements under the in-JVM lock on H2 (a {@code NEXT VALUE},
     * then {@code RESTART WITH floor + 1} when that value was not above the floor).
     */
    boolean raiseFenceFloor(Connection c, long floor) throws SQLException {
        if (mariaDb != null) {
            return mariaDb.raiseFenceFloor(c, floor);
        }
        if (kind() == DatabaseKind.H2) {
            return serialized(c, () -> {
                long next;
                try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_next_fence"));
                     ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    next = rs.getLong(1);
                }
                if (next > floor) {
                    return false;
                }
                try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_raise_fence_floor"))) {
                    ps.setLong(1, floor + 1);
                    ps.executeUpdate();
                }
                return true;
            });
        }
        c.setAutoCommit(false);
        try {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_lock_fence_floor"));
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
            boolean raised;
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_raise_fence_floor"))) {
                ps.setLong(1, floor);
                ps.setLong(2, floor);
                ps.setLong(3, floor);
                try (ResultSet rs = ps.executeQuery()) {
                    raised = rs.next();
                }
            }
            c.commit();
            return raised;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private int bindLeases(Connection c, PreparedStatement ps, List<Lease> leases) throws SQLException {
        ps.setArray(1, c.createArrayOf(textType(), column(leases, Lease::key)));
        ps.setArray(2, c.createArrayOf(textType(), column(leases, Lease::owner)));
        ps.setArray(3, c.createArrayOf(bigintType(), column(leases, Lease::fence)));
        return 4;
    }

    private static Set<Row> rows(PreparedStatement ps) throws SQLException {
        Set<Row> rows = new HashSet<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new Row(rs.getString(1), rs.getString(2), rs.getLong(3)));
            }
        }
        return rows;
    }

    private <T> T serialized(Connection c, SqlWork<T> work) throws SQLException {
        if (kind() != DatabaseKind.H2) {
            return work.run();
        }
        Object lock = H2_LOCKS.computeIfAbsent(c.getMetaData().getURL() + "|" + leaseTable(), key -> new Object());
        synchronized (lock) {
            return work.run();
        }
    }

    private String textType() {
        return kind() == DatabaseKind.H2 ? "VARCHAR" : "text";
    }

    private String bigintType() {
        return kind() == DatabaseKind.H2 ? "BIGINT" : "bigint";
    }

    private static <T> Object[] column(List<T> rows, Function<T, ?> value) {
        Object[] out = new Object[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value.apply(rows.get(i));
        }
        return out;
    }
}
