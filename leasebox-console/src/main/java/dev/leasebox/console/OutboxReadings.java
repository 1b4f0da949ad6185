package dev.leasebox.console;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Read-only queries on one outbox table, as the console shows it. The status queries are the ones
 * {@code leasebox status} runs (outbox-drain's {@code db/leasebox/status}); the open-claims query is the
 * console's own. Nothing here writes.
 */
final class OutboxReadings {

    /** The claims one owner holds, live and past their expiry. */
    record OwnerClaims(String owner, long active, long expired) {
    }

    /** One worker's share of the slots by the newest recorded grants (partition leases). */
    record SlotHolder(String holder, long slots, Instant lastGranted, boolean alive) {
    }

    record DeadLetter(long id, String idempotencyKey, int attempts, String reason, String lastError) {
    }

    /** A row under a recorded claim: its token, its emission attempts so far, whether the claim is live. */
    record OpenClaim(long id, long token, int attempts, boolean live) {
    }

    private final DataSource dataSource;
    private final TableName table;
    /** null until the first query: whether the database is MariaDB (instants as UTC date-times). */
    private volatile Boolean utcDateTimes;

    OutboxReadings(DataSource dataSource, TableName table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    TableName table() {
        return table;
    }

    Map<String, Long> countsByStatus() throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        query("status/counts_by_status.sql", List.of(), rs -> counts.put(rs.getString(1), rs.getLong(2)));
        return counts;
    }

    List<OwnerClaims> claimsByOwner(Instant now) throws SQLException {
        List<OwnerClaims> owners = new ArrayList<>();
        Timestamp ts = Timestamp.from(now);
        query("status/claims_by_owner.sql", List.of(ts, ts),
                rs -> owners.add(new OwnerClaims(rs.getString(1), rs.getLong(2), rs.getLong(3))));
        return owners;
    }

    Optional<Instant> oldestPendingCreatedAt() throws SQLException {
        List<Instant> found = new ArrayList<>();
        query("status/oldest_pending.sql", List.of(), rs -> {
            Instant t = instant(rs, 1);
            if (t != null) {
                found.add(t);
            }
        });
        return found.stream().findFirst();
    }

    List<DeadLetter> recentDeadLetters() throws SQLException {
        List<DeadLetter> letters = new ArrayList<>();
        query("status/dead_letters.sql", List.of(), rs -> letters.add(new DeadLetter(rs.getLong(1), rs.getString(2),
                rs.getInt(3), rs.getString(4), rs.getString(5))));
        return letters;
    }

    /** Slots by holder, or empty when the table has no slot table (row leases only, before V3). */
    Optional<List<SlotHolder>> slotsByHolder(Instant now) {
        List<SlotHolder> holders = new ArrayList<>();
        try {
            query("status/slots_by_holder.sql", List.of(Timestamp.from(now)), rs -> holders.add(
                    new SlotHolder(rs.getString(1), rs.getLong(2), instant(rs, 3), rs.getInt(4) == 1)));
        } catch (SQLException noSlotsTable) {
            return Optional.empty();
        }
        return Optional.of(holders);
    }

    List<OpenClaim> openClaims(Instant now) throws SQLException {
        List<OpenClaim> claims = new ArrayList<>();
        query("console/open_claims.sql", List.of(Timestamp.from(now)),
                rs -> claims.add(new OpenClaim(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getInt(4) == 1)));
        return claims;
    }

    private boolean utcDateTimes(Connection connection) throws SQLException {
        if (utcDateTimes == null) {
            utcDateTimes = DatabaseKind.of(connection) == DatabaseKind.MARIADB;
        }
        return utcDateTimes;
    }

    private Instant instant(ResultSet rs, int column) throws SQLException {
        if (Boolean.TRUE.equals(utcDateTimes)) {
            LocalDateTime t = rs.getObject(column, LocalDateTime.class);
            return t == null ? null : t.toInstant(ZoneOffset.UTC);
        }
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private interface RowHandler {
        void row(ResultSet rs) throws SQLException;
    }

    private void query(String resource, List<Object> parameters, RowHandler handler) throws SQLException {
        String sql = sql(resource).replace("${table}", table.qualified());
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            boolean utc = utcDateTimes(connection);
            for (int i = 0; i < parameters.size(); i++) {
                Object p = parameters.get(i);
                // MariaDB's DATETIME columns hold UTC without a zone: bind the instant as a UTC date-time.
                statement.setObject(i + 1, utc && p instanceof Timestamp t
                        ? LocalDateTime.ofInstant(t.toInstant(), ZoneOffset.UTC) : p);
            }
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    handler.row(rs);
                }
            }
        }
    }

    private static String sql(String resource) {
        String path = "db/leasebox/" + resource;
        try (InputStream in = OutboxReadings.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path + " (outbox-drain on the class path?)");
            }
            StringBuilder sql = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.trim().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return sql.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
