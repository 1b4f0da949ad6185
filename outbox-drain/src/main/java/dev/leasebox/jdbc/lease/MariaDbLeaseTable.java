package dev.leasebox.jdbc.lease;

import dev.leasebox.jdbc.dialect.MariaDbDialect;
import dev.leasebox.jdbc.dialect.MariaDbTransactions;
import dev.leasebox.lease.Lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@link LeaseTable}'s statements on MariaDB, which has no arrays: a batch runs per key in one READ
 * COMMITTED transaction, keys in {@code lease_key} order (grants, renewals and releases alike), so
 * concurrent batches never deadlock on each other's rows. Each statement is itself the conditional
 * write (the key free, or still held by this owner and fence); a grant's fence is read back while
 * the grant's row lock is held.
 */
final class MariaDbLeaseTable {

    /** lease_key is VARCHAR(700): a longer key would be cut short by the grant's INSERT IGNORE. */
    static final int MAX_KEY_CHARACTERS = 700;

    private final MariaDbDialect dialect;

    MariaDbLeaseTable(MariaDbDialect dialect) {
        this.dialect = dialect;
    }

    Map<String, Long> acquire(Connection c, List<String> keys, String owner, Instant expiresAt, long ttlMillis,
                              Instant now) throws SQLException {
        for (String key : keys) {
            int length = key.codePointCount(0, key.length());
            if (length > MAX_KEY_CHARACTERS) {
                throw new IllegalArgumentException("a lease key of " + length + " characters is longer than the "
                        + MAX_KEY_CHARACTERS + " that lease_key holds on MariaDB (V3): use shorter keys (the key starts '"
                        + key.substring(0, key.offsetByCodePoints(0, 40)) + "…')");
            }
        }
        TreeSet<String> ordered = new TreeSet<>(keys);
        return MariaDbTransactions.transaction(c, dialect.sql("read_committed"), () -> {
            Map<String, Long> granted = new HashMap<>();
            try (PreparedStatement regrant = c.prepareStatement(dialect.sql("lease_regrant"));
                 PreparedStatement grantNew = c.prepareStatement(dialect.sql("lease_grant_new"));
                 PreparedStatement fence = c.prepareStatement(dialect.sql("lease_fence"))) {
                for (String key : ordered) {
                    regrant.setString(1, owner);
                    dialect.setInstant(regrant, 2, expiresAt);
                    regrant.setLong(3, ttlMillis);
                    regrant.setString(4, key);
                    dialect.setInstant(regrant, 5, now);
                    boolean won = regrant.executeUpdate() == 1;
                    if (!won) {
                        grantNew.setString(1, key);
                        grantNew.setString(2, owner);
                        dialect.setInstant(grantNew, 3, expiresAt);
                        grantNew.setLong(4, ttlMillis);
                        won = grantNew.executeUpdate() == 1;
                    }
                    if (won) {
                        fence.setString(1, key);
                        try (ResultSet rs = fence.executeQuery()) {
                            rs.next();
                            granted.put(key, rs.getLong(1));
                        }
                    }
                }
            }
            return granted;
        });
    }

    Set<String> held(Connection c, List<String> keys, Instant now) throws SQLException {
        if (keys.isEmpty()) {
            return Set.of();
        }
        String sql = dialect.sql("lease_held").replace("${keys}", MariaDbTransactions.placeholders(keys.size()));
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (String key : keys) {
                ps.setString(i++, key);
            }
            dialect.setInstant(ps, i, now);
            Set<String> held = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    held.add(rs.getString(1));
                }
            }
            return held;
        }
    }

    Set<LeaseTable.Row> renew(Connection c, List<Lease> leases, List<Instant> expiries, Instant now) throws SQLException {
        List<Integer> order = keyOrder(leases);
        return MariaDbTransactions.transaction(c, dialect.sql("read_committed"), () -> {
            Set<LeaseTable.Row> renewed = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_renew"))) {
                for (int i : order) {
                    Lease lease = leases.get(i);
                    dialect.setInstant(ps, 1, expiries.get(i));
                    ps.setLong(2, lease.ttl().toMillis());
                    ps.setString(3, lease.key());
                    ps.setString(4, lease.owner());
                    ps.setLong(5, lease.fence());
                    dialect.setInstant(ps, 6, now);
                    if (ps.executeUpdate() == 1) {
                        renewed.add(LeaseTable.Row.of(lease));
                    }
                }
            }
            return renewed;
        });
    }

    Set<LeaseTable.Row> release(Connection c, List<Lease> leases, Instant now) throws SQLException {
        List<Integer> order = keyOrder(leases);
        return MariaDbTransactions.transaction(c, dialect.sql("read_committed"), () -> {
            Set<LeaseTable.Row> released = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_release"))) {
                for (int i : order) {
                    Lease lease = leases.get(i);
                    ps.setString(1, lease.key());
                    ps.setString(2, lease.owner());
                    ps.setLong(3, lease.fence());
                    dialect.setInstant(ps, 4, now);
                    if (ps.executeUpdate() == 1) {
                        released.add(LeaseTable.Row.of(lease));
                    }
                }
            }
            return released;
        });
    }

    /**
     * One atomic {@code SETVAL}: MariaDB moves an ascending sequence only forward. True only when the
     * sequence was behind the floor (its next value at or below it): {@code SETVAL(seq, n)} also answers n
     * when n is the last value handed out, which is no raise.
     */
    boolean raiseFenceFloor(Connection c, long floor) throws SQLException {
        try (PreparedStatement next = c.prepareStatement(dialect.sql("lease_fence_next"));
             ResultSet rs = next.executeQuery()) {
            rs.next();
            if (rs.getLong(1) > floor) {
                return false;
            }
        }
        try (PreparedStatement ps = c.prepareStatement(dialect.sql("lease_raise_fence_floor"))) {
            ps.setLong(1, floor);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rs.getLong(1);
                return !rs.wasNull();
            }
        }
    }

    private static List<Integer> keyOrder(List<Lease> leases) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing((Integer i) -> leases.get(i).key()));
        return order;
    }
}
