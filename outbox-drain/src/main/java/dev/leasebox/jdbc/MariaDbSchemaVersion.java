package dev.leasebox.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import dev.leasebox.jdbc.dialect.SqlDialect;

/**
 * Which migration a MariaDB table is at. MariaDB commits every DDL statement on its own, so an apply
 * interrupted inside a script (a deploy timeout, a killed process) leaves a prefix of it behind. A script
 * counts as applied only when every object it creates exists, and the version is the last script of an
 * unbroken run from V1: a table whose V3 stopped half-way is at V2 even if a later apply ran V4 and V5,
 * and applying from V3 again completes it (every MariaDB statement can run again). V7 creates nothing
 * here, so a table at V6 is at V7; V8 is the registry's {@code taken_over} column.
 */
final class MariaDbSchemaVersion {

    private static final String OBJECTS = "db/leasebox/schema/mariadb/objects.sql";
    private static final String SLOT_ROWS = "db/leasebox/schema/mariadb/slot_rows.sql";
    private static final String GUARD_ROWS = "db/leasebox/schema/mariadb/guard_rows.sql";
    private static final String NO_PAD = "utf8mb4_nopad_bin";
    private static final List<String> CLAIM_COLUMNS = List.of("claim_owner", "claimed_at", "claim_expires_at",
            "claim_token", "claim_attempt_count", "fence_high_water");

    private MariaDbSchemaVersion() {
    }

    static int applied(Connection connection, TableName table) throws SQLException {
        // MariaDB's databases are JDBC catalogs: the table's qualifier, else the connection's database.
        String database = table.schema().isEmpty() ? connection.getCatalog() : table.schema();
        String t = table.table();
        String slots = t + "_lease_slots";
        String workers = t + "_workers";
        String leases = t + "_leases";
        String styles = t + "_claim_styles";
        String tokenSeq = t + "_claim_token_seq";
        String fenceSeq = t + "_lease_fence_seq";
        List<String> names = List.of(t, slots, workers, leases, styles, tokenSeq, fenceSeq);

        Map<String, String> tables = new HashMap<>();                // table or sequence: its type
        Map<String, Map<String, String>> columns = new HashMap<>();  // table: column: its collation
        Set<String> indexes = new HashSet<>();
        try (PreparedStatement ps = connection.prepareStatement(SqlDialect.resource(OBJECTS))) {
            int i = 1;
            ps.setString(i++, database);
            for (String name : names) {
                ps.setString(i++, name);
            }
            ps.setString(i++, database);
            ps.setString(i++, t);
            ps.setString(i++, database);
            for (String name : names) {
                ps.setString(i++, name);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String owner = rs.getString(2);
                    switch (rs.getString(1)) {
                        case "column" -> columns.computeIfAbsent(owner, k -> new HashMap<>())
                                .put(rs.getString(3).toLowerCase(Locale.ROOT), rs.getString(4));
                        case "index" -> indexes.add(rs.getString(3).toLowerCase(Locale.ROOT));
                        default -> tables.put(owner, rs.getString(3));
                    }
                }
            }
        }
        Map<String, String> outbox = columns.getOrDefault(t, Map.of());
        if (!tables.containsKey(t)) {
            return 0;
        }
        String index = t.toLowerCase(Locale.ROOT);  // index names are read lower-cased
        boolean v2 = outbox.keySet().containsAll(CLAIM_COLUMNS)
                && (indexes.contains(index + "_claim_candidates") || indexes.contains(index + "_claim_queue"))
                && "SEQUENCE".equals(tables.get(tokenSeq));
        if (!v2) {
            return 1;
        }
        boolean v3Objects = outbox.containsKey("lease_slot") && indexes.contains(index + "_key_order")
                && tables.containsKey(slots) && tables.containsKey(workers) && tables.containsKey(leases)
                && "SEQUENCE".equals(tables.get(fenceSeq));
        if (!v3Objects || count(connection, table, SLOT_ROWS) == 0) {
            return 2;
        }
        if (!tables.containsKey(styles) || count(connection, table, GUARD_ROWS) == 0) {
            return 3;
        }
        if (!indexes.contains(index + "_claim_queue") || indexes.contains(index + "_claim_candidates")) {
            return 4;
        }
        for (String name : List.of(t, slots, workers, leases, styles)) {
            for (String collation : columns.getOrDefault(name, Map.of()).values()) {
                if (collation != null && !NO_PAD.equalsIgnoreCase(collation)) {
                    return 5;
                }
            }
        }
        // V7 (wake-ups at commit) has nothing to do on MariaDB
        return columns.getOrDefault(styles, Map.of()).containsKey("taken_over") ? 8 : 7;
    }

    private static long count(Connection connection, TableName table, String resource) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(table.substituteInto(SqlDialect.resource(resource)));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
