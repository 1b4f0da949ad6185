package dev.leasebox.jdbc;

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
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Read-only status queries on one outbox table: what {@code leasebox status}, the operator's console, the
 * worker's backlog gauges and the Spring Boot health indicator show. Each call is one statement on a
 * connection of its own; nothing here writes. "Now" is passed in by the caller, so that expiry is judged
 * by the clock the caller chose (the database's, where it matters). Works on PostgreSQL, MariaDB and H2.
 */
public final class OutboxTableStatus {

    /** The claims one owner holds, live and past their expiry. */
    public record OwnerClaims(String owner, long active, long expired) {
    }

    /** One worker's share of the slots by the newest recorded grants (partition leases). */
    public record SlotHolder(String holder, long slots, Instant lastGranted, boolean alive) {
    }

    /** A dead-lettered entry: its type, when it was written, the reason and the last error recorded for it. */
    public record DeadLetter(long id, String idempotencyKey, String type, Instant createdAt, int attempts, String reason,
                             String lastError) {
    }

    /** A row under a recorded claim: its token, its emission attempts so far, whether the claim is live. */
    public record OpenClaim(long id, long token, int attempts, boolean live) {
    }

    /** A row's status and fence high-water mark. */
    public record FenceMark(String status, long fenceHighWater) {
    }

    private final DataSource dataSource;
    private final TableName table;
    /** null until the first query: whether the database is MariaDB (instants as UTC date-times). */
    private volatile Boolean utcDateTimes;

    public OutboxTableStatus(DataSource dataSource, TableName table) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
    }

    public TableName table() {
        return table;
    }

    /** Rows per status. */
    public Map<String, Long> countsByStatus() throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        query("counts_by_status.sql", List.of(), rs -> counts.put(rs.getString(1), rs.getLong(2)));
        return counts;
    }

    /** Recorded claims by owner, live and expired at {@code now}. */
    public List<OwnerClaims> claimsByOwner(Instant now) throws SQLException {
        List<OwnerClaims> owners = new ArrayList<>();
        Timestamp ts = Timestamp.from(now);
        query("claims_by_owner.sql", List.of(ts, ts), rs -> owners.add(new OwnerClaims(rs.getString(1), rs.getLong(2), rs.getLong(3))));
        return owners;
    }

    /** When the oldest entry still waiting for delivery was created; empty when none waits. */
    public Optional<Instant> oldestPendingCreatedAt() throws SQLException {
        List<Instant> found = new ArrayList<>();
        query("oldest_pending.sql", List.of(), rs -> {
            Instant t = instant(rs, 1);
            if (t != null) {
                found.add(t);
            }
        });
        return found.stream().findFirst();
    }

    /** The ten newest dead letters. */
    public List<DeadLetter> recentDeadLetters() throws SQLException {
        List<DeadLetter> letters = new ArrayList<>();
        query("dead_letters.sql", List.of(), rs -> letters.add(new DeadLetter(rs.getLong(1), rs.getString(2), rs.getString(6),
                instant(rs, 7), rs.getInt(3), rs.getString(4), rs.getString(5))));
        return letters;
    }

    /**
     * Slots by the holder of their newest recorded grant, or empty when the table has no V3 slot table
     * (row leases only).
     */
    public Optional<List<SlotHolder>> slotsByHolder(Instant now) {
        List<SlotHolder> holders = new ArrayList<>();
        try {
            query("slots_by_holder.sql", List.of(Timestamp.from(now)),
                    rs -> holders.add(new SlotHolder(rs.getString(1), rs.getLong(2), instant(rs, 3), rs.getInt(4) == 1)));
        } catch (SQLException noSlotsTable) {
            return Optional.empty();
        }
        return Optional.of(holders);
    }

    /**
     * The table's count of claims taken over from claims that expired unfinished, as its workers added it to the
     * claim-style registry (V8, decision 0046); empty when the table has no V8 (or no registry).
     */
    public OptionalLong takenOverTotal() {
        long[] total = {-1};
        try {
            query("taken_over.sql", List.of(), rs -> total[0] = rs.getLong(1));
        } catch (SQLException noCount) {
            return OptionalLong.empty();
        }
        return total[0] < 0 ? OptionalLong.empty() : OptionalLong.of(total[0]);
    }

    /**
     * Whether any entry is still to act on at {@code now}: the question an idle check asks. Unlike
     * {@link #outstanding(Instant)}, which counts the whole backlog, it stops at the first such row.
     */
    public boolean anyOutstanding(Instant now) throws SQLException {
        Timestamp ts = Timestamp.from(now);
        boolean[] any = new boolean[1];
        query("any_outstanding.sql", List.of(ts, ts), rs -> any[0] = rs.getInt(1) == 1);
        return any[0];
    }

    /** Entries still to act on at {@code now}: eligible and due, or under a live claim (the backlog). */
    public long outstanding(Instant now) throws SQLException {
        Timestamp ts = Timestamp.from(now);
        long[] count = new long[1];
        query("outstanding.sql", List.of(ts, ts), rs -> count[0] = rs.getLong(1));
        return count[0];
    }

    /** Rows under a recorded claim (at most 10,000), live or not at {@code now}. */
    public List<OpenClaim> openClaims(Instant now) throws SQLException {
        List<OpenClaim> claims = new ArrayList<>();
        query("open_claims.sql", List.of(Timestamp.from(now)),
                rs -> claims.add(new OpenClaim(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getInt(4) == 1)));
        return claims;
    }

    /** The claim tokens of the rows {@code owner} holds a recorded claim on, by entry id. */
    public Map<Long, Long> claimsOf(String owner) throws SQLException {
        Map<Long, Long> claims = new LinkedHashMap<>();
        query("claims_of_owner.sql", List.of(owner), rs -> claims.put(rs.getLong(1), rs.getLong(2)));
        return claims;
    }

    /** Every row's status and fence high-water mark, by entry id. */
    public Map<Long, FenceMark> fenceMarks() throws SQLException {
        Map<Long, FenceMark> marks = new LinkedHashMap<>();
        query("fence_marks.sql", List.of(), rs -> marks.put(rs.getLong(1), new FenceMark(rs.getString(2), rs.getLong(3))));
        return marks;
    }

    /** Terminal rows that still carry a claim token: 0 unless a completion forgot to clear its claim. */
    public long terminalWithClaim() throws SQLException {
        long[] count = new long[1];
        query("terminal_with_claim.sql", List.of(), rs -> count[0] = rs.getLong(1));
        return count[0];
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
        try (InputStream in = OutboxTableStatus.class.getResourceAsStream(path)) {
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
