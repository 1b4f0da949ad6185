package dev.leasebox.jdbc.dialect;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.CandidateSample;
import dev.leasebox.jdbc.store.QueueHead;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One database's SQL for the outbox table: its statements live in
 * {@code db/leasebox/statements/<database>/<name>.sql}, loaded once with the validated table name
 * substituted. The operations whose SQL shape differs between databases (batched claim recording,
 * batched completion) are implemented by each subclass; the rest is shared JDBC code.
 *
 * <p>Every method runs exactly one statement unless it says otherwise, on a connection in
 * auto-commit mode (or inside the caller's transaction for {@link #insert}).
 */
public abstract sealed class SqlDialect permits PostgreSqlDialect, H2Dialect, MariaDbDialect {

    private final DatabaseKind kind;
    private final TableName table;
    private final Map<String, String> statements = new ConcurrentHashMap<>();

    SqlDialect(DatabaseKind kind, TableName table) {
        this.kind = kind;
        this.table = table;
    }

    /** The dialect for {@code kind}, over {@code table}. */
    public static SqlDialect of(DatabaseKind kind, TableName table) {
        return switch (kind) {
            case POSTGRESQL -> new PostgreSqlDialect(table);
            case H2 -> new H2Dialect(table);
            case MARIADB -> new MariaDbDialect(table);
        };
    }

    public DatabaseKind kind() {
        return kind;
    }

    public TableName table() {
        return table;
    }

    /** The statement {@code name} of this dialect, placeholders substituted. */
    public String sql(String name) {
        return statements.computeIfAbsent(name, n -> table.substituteInto(resource("db/leasebox/statements/"
                + kind.folder() + "/" + n + ".sql")));
    }

    public static String resource(String path) {
        try (InputStream in = SqlDialect.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path + " (is the outbox-drain jar complete?)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + path, e);
        }
    }

    // ---- start-up checks ------------------------------------------------------------------------

    /** Whether {@code e} says the table (or its schema) does not exist. */
    public abstract boolean isMissingTable(SQLException e);

    /** Whether {@code e} says a column does not exist. */
    public abstract boolean isMissingColumn(SQLException e);

    /** Whether {@code e} says a unique key (the idempotency key) is taken already. */
    public boolean isDuplicateKey(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    /** Runs the named probe statement; it returns no rows and fails when the schema lacks something. */
    public void probe(Connection c, String statement) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql(statement)); ResultSet rs = ps.executeQuery()) {
            rs.next();
        }
    }

    // ---- instants: how this database stores them ----------------------------------------------------

    /** Binds an instant (or NULL) as this database's timestamp columns take it. */
    void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
        EntryRows.setInstant(ps, index, instant);
    }

    /** The outbox row at {@code rs}'s cursor. */
    OutboxEntry read(ResultSet rs, boolean withClaims) throws SQLException {
        return EntryRows.read(rs, withClaims);
    }

    List<OutboxEntry> readAll(ResultSet rs, boolean withClaims) throws SQLException {
        return EntryRows.readAll(rs, withClaims);
    }

    // ---- shared statements ----------------------------------------------------------------------

    /** Inserts a PENDING row; the row as written. */
    public OutboxEntry insert(Connection c, OutboxMessage message, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("insert"))) {
            ps.setString(1, message.idempotencyKey());
            ps.setString(2, message.partitionKey().orElse(null));
            ps.setString(3, message.type());
            ps.setBytes(4, message.payload());
            ps.setString(5, HeadersJson.write(message.headers()));
            setInstant(ps, 6, now);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return read(rs, false);
            }
        }
    }

    /** Eligible rows of {@code selection} at {@code now}, oldest first, at most {@code limit}. */
    public List<OutboxEntry> selectEligible(Connection c, ClaimSelection selection, Instant now, int limit,
                                     boolean withClaims) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql(withClaims ? "select_eligible" : "select_eligible_without_claims"))) {
            int i = EntryRows.bindSelection(ps, 1, selection);
            setInstant(ps, i++, now);
            if (withClaims) {
                setInstant(ps, i++, now);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, withClaims);
            }
        }
    }

    /**
     * The ids of {@link #selectEligible}'s rows (with claims) from {@code from} on ({@link QueueHead#FULL}: all),
     * oldest first, at most {@code limit}.
     */
    public List<CandidateSample.Candidate> selectEligibleIds(Connection c, ClaimSelection selection, Instant now, long from,
                                                      int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("select_eligible_ids"))) {
            bindEligibleIds(ps, selection, now, from, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return readCandidates(rs);
            }
        }
    }

    /** Binds select_eligible_ids.sql's parameters (PostgreSQL and H2). */
    static void bindEligibleIds(PreparedStatement ps, ClaimSelection selection, Instant now, long from, int limit)
            throws SQLException {
        int i = EntryRows.bindSelection(ps, 1, selection);
        EntryRows.setInstant(ps, i++, now);
        EntryRows.setInstant(ps, i++, now);
        ps.setLong(i++, from);
        ps.setInt(i, limit);
    }

    /** The candidates of select_eligible_ids.sql's rows: id, then whether the row's claim lapsed. */
    static List<CandidateSample.Candidate> readCandidates(ResultSet rs) throws SQLException {
        List<CandidateSample.Candidate> ids = new java.util.ArrayList<>();
        while (rs.next()) {
            ids.add(new CandidateSample.Candidate(rs.getLong(1), rs.getBoolean(2), false));
        }
        return ids;
    }

    /** Those of {@code ids} whose rows are eligible for {@code selection} at {@code now}, oldest first. */
    public List<OutboxEntry> selectEligibleByIds(Connection c, ClaimSelection selection, Instant now, Collection<Long> ids)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("select_eligible_by_ids"))) {
            ps.setArray(1, c.createArrayOf(idArrayType(), ids.toArray(new Long[0])));
            int i = EntryRows.bindSelection(ps, 2, selection);
            setInstant(ps, i++, now);
            setInstant(ps, i, now);
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, true);
            }
        }
    }

    public Optional<OutboxEntry> findById(Connection c, long id, boolean withClaims) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("find_by_id"))) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs, withClaims)) : Optional.empty();
            }
        }
    }

    public List<OutboxEntry> findByIds(Connection c, Collection<Long> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("find_by_ids"))) {
            ps.setArray(1, c.createArrayOf(idArrayType(), ids.toArray(new Long[0])));
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, true);
            }
        }
    }

    /** The SQL type name for arrays of ids. */
    public abstract String idArrayType();

    /** Writes emission state unconditionally; empty when no row has the id. */
    public Optional<OutboxEntry> save(Connection c, OutboxEntry entry, boolean withClaims) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("save"))) {
            ps.setString(1, entry.status().name());
            ps.setInt(2, entry.attemptCount());
            setInstant(ps, 3, entry.nextAttemptAt().orElse(null));
            setInstant(ps, 4, entry.deliveredAt().orElse(null));
            ps.setString(5, entry.lastError().orElse(null));
            ps.setString(6, entry.deadLetterReason().orElse(null));
            ps.setLong(7, entry.id());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(read(rs, withClaims)) : Optional.empty();
            }
        }
    }

    public long highestFenceHighWater(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("highest_fence_high_water"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ---- database-specific operations -------------------------------------------------------------

    /**
     * The rows a claim wrote, and the ids of those that still carried an earlier claim, expired and never
     * completed, when it was written: the claim took them over (decision 0040).
     */
    public record ClaimedRows(List<OutboxEntry> rows, Set<Long> takenOver) {
    }

    /**
     * The {@code database} backend: claims up to {@code limit} eligible rows from id {@code from} on
     * ({@link QueueHead#FULL}: all) with sequence tokens. {@code now} and {@code expiresAt} null: the database's
     * clock judges and writes ({@code now() + leaseMillis}). Which rows it took over is read in the same
     * statements, where the database lets them say it (PostgreSQL, MariaDB; H2 says none).
     */
    public abstract ClaimedRows claimInDatabase(Connection c, ClaimSelection selection, String owner, Instant now,
                                               Instant expiresAt, long leaseMillis, long from, int limit)
            throws SQLException;

    /** Records the grants whose fence is above the row's mark and whose row is eligible; the claimed rows. */
    public abstract List<OutboxEntry> recordClaims(Connection c, ClaimSelection selection, Instant now,
                                            List<ClaimGrant> grants) throws SQLException;

    /**
     * Lets the open transaction on {@code c} commit without waiting for durability, where the database
     * can (PostgreSQL: {@code SET LOCAL synchronous_commit = off}); does nothing elsewhere.
     */
    public void relaxCommitDurability(Connection c) throws SQLException {
    }

    /** A row a completion was written to, with the token that completion presented. */
    public record CompletedRow(long presentedToken, OutboxEntry entry) {
    }

    /** Token-checked completions; the rows that were completed (refused ones are absent). */
    public abstract List<CompletedRow> completeAll(Connection c, List<ClaimCompletion> completions) throws SQLException;

    /**
     * Fenced completions (the lean claim mode): written where the row is claim-completable, the presented
     * token is strictly above its fence_high_water and no recorded claim on it is live at {@code now} (null:
     * the database's clock); the rows that were completed.
     */
    public abstract List<CompletedRow> completeAllFenced(Connection c, List<ClaimCompletion> completions, Instant now)
            throws SQLException;

    /**
     * Moves the expiry of each claim whose token still matches, to {@code expiresAt}, or (null) to the database's
     * {@code now() + leaseMillis}; the ids moved.
     */
    public abstract Set<Long> extendClaims(Connection c, List<OutboxClaim> claims, Instant expiresAt, long leaseMillis)
            throws SQLException;
}
