package dev.leasebox.cli;

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

/** Read-only reports on an outbox table, for {@code status}, {@code --exit-when-idle} and the demo. */
final class OutboxReport {

    record OwnerClaims(String owner, long active, long expired) {
    }

    record DeadLetter(long id, String idempotencyKey, int attempts, String reason, String lastError) {
    }

    private final DataSource dataSource;
    private final TableName table;

    OutboxReport(DataSource dataSource, TableName table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    Map<String, Long> countsByStatus() throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        query("counts_by_status.sql", List.of(), rs -> counts.put(rs.getString(1), rs.getLong(2)));
        return counts;
    }

    List<OwnerClaims> claimsByOwner(Instant now) throws SQLException {
        List<OwnerClaims> owners = new ArrayList<>();
        Timestamp ts = Timestamp.from(now);
        query("claims_by_owner.sql", List.of(ts, ts), rs -> owners.add(new OwnerClaims(rs.getString(1), rs.getLong(2), rs.getLong(3))));
        return owners;
    }

    Optional<Instant> oldestPendingCreatedAt() throws SQLException {
        List<Instant> found = new ArrayList<>();
        query("oldest_pending.sql", List.of(), rs -> {
            Instant t = instant(rs, 1);
            if (t != null) {
                found.add(t);
            }
        });
        return found.stream().findFirst();
    }

    List<DeadLetter> recentDeadLetters() throws SQLException {
        List<DeadLetter> letters = new ArrayList<>();
        query("dead_letters.sql", List.of(), rs -> letters.add(new DeadLetter(rs.getLong(1), rs.getString(2), rs.getInt(3),
                rs.getString(4), rs.getString(5))));
        return letters;
    }

    /** One worker's share of the slots, by the newest recorded grants (partition leases). */
    record SlotHolder(String holder, long slots, Instant lastGranted, boolean alive) {
    }

    /**
     * Slots by the holder of their newest recorded grant, or empty when the table has no V3 slots
     * (row leases only).
     */
    Optional<List<SlotHolder>> slotsByHolder(Instant now) {
        List<SlotHolder> holders = new ArrayList<>();
        try {
            query("slots_by_holder.sql", List.of(Timestamp.from(now)), rs -> {
                holders.add(new SlotHolder(rs.getString(1), rs.getLong(2), instant(rs, 3), rs.getInt(4) == 1));
            });
        } catch (SQLException noSlotsTable) {
            return Optional.empty();
        }
        return Optional.of(holders);
    }

    /** Entries still to act on now: eligible and due, or under a live claim. */
    long outstanding(Instant now) throws SQLException {
        Timestamp ts = Timestamp.from(now);
        long[] count = new long[1];
        query("outstanding.sql", List.of(ts, ts), rs -> count[0] = rs.getLong(1));
        return count[0];
    }

    /** The claim tokens of the rows {@code owner} holds a claim on, by entry id. */
    Map<Long, Long> claimsOf(String owner) throws SQLException {
        Map<Long, Long> claims = new LinkedHashMap<>();
        query("claims_of_owner.sql", List.of(owner), rs -> claims.put(rs.getLong(1), rs.getLong(2)));
        return claims;
    }

    /** A row's status and fence high-water mark. */
    record FenceMark(String status, long fenceHighWater) {
    }

    /** Every row's status and fence high-water mark, by entry id. */
    Map<Long, FenceMark> fenceMarks() throws SQLException {
        Map<Long, FenceMark> marks = new LinkedHashMap<>();
        query("fence_marks.sql", List.of(), rs -> marks.put(rs.getLong(1), new FenceMark(rs.getString(2), rs.getLong(3))));
        return marks;
    }

    /** Terminal rows that still carry a claim token (must be 0). */
    long terminalWithClaim() throws SQLException {
        long[] count = new long[1];
        query("terminal_with_claim.sql", List.of(), rs -> count[0] = rs.getLong(1));
        return count[0];
    }

    /** null until the first query: whether the database is MariaDB (instants as UTC date-times). */
    private volatile Boolean utcDateTimes;

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
                statement.setObject(i + 1, utc && p instanceof Timestamp t ? LocalDateTime.ofInstant(t.toInstant(), ZoneOffset.UTC) : p);
            }
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    handler.row(rs);
                }
            }
        }
    }

    private static String sql(String resource) {
        String path = "/db/leasebox/status/" + resource;
        try (InputStream in = OutboxReport.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
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
