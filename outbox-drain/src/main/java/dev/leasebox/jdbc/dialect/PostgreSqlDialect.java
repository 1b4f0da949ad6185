package dev.leasebox.jdbc.dialect;

import java.util.Map;
import java.util.HashMap;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.CandidateSample;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL: batches travel as arrays and are joined with {@code unnest}, so claim recording,
 * completion and renewal each cost one statement (one round trip) per batch, however large. Those
 * statements keep the row's own conditions in a {@code CASE}, so that their plans are driven from the
 * batch (one primary-key probe per element) whatever the table's statistics say; see
 * {@code record_claims.sql}. The
 * {@code database} backend claims with {@code FOR UPDATE SKIP LOCKED} inside a single
 * {@code UPDATE … RETURNING}, tokens from the table's sequence.
 */
public final class PostgreSqlDialect extends SqlDialect {

    private final java.util.Map<Integer, String> claimStatements = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Map<Integer, String> pinnedClaimStatements = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile String pinnedCandidateRead;

    PostgreSqlDialect(TableName table) {
        super(DatabaseKind.POSTGRESQL, table);
    }

    @Override
    public boolean isMissingTable(SQLException e) {
        return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState());
    }

    @Override
    public boolean isMissingColumn(SQLException e) {
        return "42703".equals(e.getSQLState());
    }

    @Override
    public String idArrayType() {
        return "bigint";
    }

    @Override
    public ClaimedRows claimInDatabase(Connection c, ClaimSelection selection, String owner, Instant now,
                                Instant expiresAt, long leaseMillis, long from, int limit) throws SQLException {
        return QueueScan.query(c, pinnedClaimStatements.computeIfAbsent(limit, b -> QueueScan.pinned(claimSql(b))),
                ps -> bindClaimInDatabase(ps, selection, owner, now, expiresAt, leaseMillis, from),
                PostgreSqlDialect::readClaimed);
    }

    /** claim_in_database.sql's rows, and those whose previous_token says they were taken over. */
    private static ClaimedRows readClaimed(ResultSet rs) throws SQLException {
        List<OutboxEntry> rows = new ArrayList<>();
        Set<Long> takenOver = new HashSet<>();
        EntryRows.Reader reader = null;
        int previousToken = 0;
        while (rs.next()) {
            if (reader == null) {
                reader = new EntryRows.Reader(rs, true, false);
                previousToken = rs.findColumn("previous_token");
            }
            OutboxEntry row = reader.read();
            rows.add(row);
            rs.getLong(previousToken);
            if (!rs.wasNull()) {
                takenOver.add(row.id());
            }
        }
        return new ClaimedRows(rows, takenOver);
    }

    @Override
    public List<CandidateSample.Candidate> selectEligibleIds(Connection c, ClaimSelection selection, Instant now, long from,
                                                      int limit) throws SQLException {
        if (pinnedCandidateRead == null) {
            pinnedCandidateRead = QueueScan.pinned(sql("select_eligible_ids"));
        }
        return QueueScan.query(c, pinnedCandidateRead, ps -> bindEligibleIds(ps, selection, now, from, limit),
                SqlDialect::readCandidates);
    }

    /** Binds claim_in_database.sql's parameters (also used to EXPLAIN it in tests). */
    void bindClaimInDatabase(PreparedStatement ps, ClaimSelection selection, String owner, Instant now,
                             Instant expiresAt, long leaseMillis, long from) throws SQLException {
        ps.setString(1, owner);
        EntryRows.setInstant(ps, 2, now);
        EntryRows.setInstant(ps, 3, expiresAt);
        ps.setLong(4, leaseMillis);
        int i = EntryRows.bindSelection(ps, 5, selection);
        EntryRows.setInstant(ps, i++, now);
        EntryRows.setInstant(ps, i++, now);
        ps.setLong(i, from);
    }

    /**
     * claim_in_database.sql for batches of {@code batch}: the batch size is written into the statement as a
     * literal, so that every plan (a generic one included) expects a batch of rows and probes them by primary
     * key; one statement text per batch size, cached (a drain uses one or two).
     */
    public String claimSql(int batch) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be positive, was " + batch);
        }
        return claimStatements.computeIfAbsent(batch, b -> sql("claim_in_database").replace("${batch}", Integer.toString(b)));
    }

    @Override
    public List<OutboxEntry> recordClaims(Connection c, ClaimSelection selection, Instant now, List<ClaimGrant> grants)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("record_claims"))) {
            bindRecordClaims(ps, selection, now, grants);
            try (ResultSet rs = ps.executeQuery()) {
                return EntryRows.readAll(rs, true);
            }
        }
    }

    /** Binds record_claims.sql's parameters (also used to EXPLAIN it in tests). */
    public void bindRecordClaims(PreparedStatement ps, ClaimSelection selection, Instant now,
                          List<ClaimGrant> grants) throws SQLException {
        long[] ids = PgArrays.longs(grants, ClaimGrant::entryId);
        ps.setObject(1, ids);
        ps.setObject(2, PgArrays.strings(grants, ClaimGrant::owner));
        ps.setObject(3, PgArrays.longs(grants, ClaimGrant::token));
        ps.setObject(4, PgArrays.epochMicros(grants, ClaimGrant::claimedAt));
        ps.setObject(5, PgArrays.epochMicros(grants, ClaimGrant::expiresAt));
        int i = EntryRows.bindSelection(ps, 6, selection);
        EntryRows.setInstant(ps, i++, now);
        EntryRows.setInstant(ps, i++, now);
        ps.setObject(i, ids);
    }

    @Override
    public void relaxCommitDurability(Connection c) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.execute(sql("relax_commit_durability"));
        }
    }

    @Override
    public List<CompletedRow> completeAll(Connection c, List<ClaimCompletion> completions) throws SQLException {
        return complete(c, "complete_all", completions, false, null);
    }

    @Override
    public List<CompletedRow> completeAllFenced(Connection c, List<ClaimCompletion> completions, Instant now)
            throws SQLException {
        return complete(c, "complete_all_fenced", completions, true, now);
    }

    private List<CompletedRow> complete(Connection c, String statement, List<ClaimCompletion> completions, boolean fenced,
                                        Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql(statement))) {
            bindCompletions(ps, completions, fenced, now);
            Map<ClaimKey, OutboxClaim> claims = new HashMap<>(Math.max(16, completions.size() * 4 / 3 + 1));
            completions.forEach(cc -> claims.putIfAbsent(new ClaimKey(cc.claim().entryId(), cc.claim().token()), cc.claim()));
            List<CompletedRow> completed = new ArrayList<>(completions.size());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long token = rs.getLong(10);
                    OutboxClaim claim = claims.get(new ClaimKey(rs.getLong(1), token));
                    completed.add(new CompletedRow(token, written(claim.entry(), rs)));
                }
            }
            return completed;
        }
    }

    /** A claim by row and token: how a completion's returned row finds the claim it wrote. */
    private record ClaimKey(long entryId, long token) {
    }

    /**
     * The row as a completion left it: the claimed row with the columns the statement returns (status,
     * attempts, retry and delivery times, errors, claim attempts, fence mark) and no claim. The other
     * columns are written once, at enqueue, so the claim's copy of them is the row's.
     */
    private static OutboxEntry written(OutboxEntry claimed, ResultSet rs) throws SQLException {
        return claimed.toBuilder().clearClaim()
                .status(EmissionStatus.valueOf(rs.getString(2)))
                .attemptCount(rs.getInt(3))
                .nextAttemptAt(EntryRows.instant(rs, 4, false))
                .deliveredAt(EntryRows.instant(rs, 5, false))
                .lastError(rs.getString(6))
                .deadLetterReason(rs.getString(7))
                .claimAttemptCount(rs.getInt(8))
                .fenceHighWater(rs.getLong(9))
                .build();
    }

    /**
     * Binds the parameters of complete_all.sql ({@code fenced} false) and complete_all_fenced.sql ({@code fenced}
     * true; {@code now} is the instant an unexpired recorded claim is judged at, null for the database's clock),
     * also used to EXPLAIN them in tests.
     */
    public void bindCompletions(PreparedStatement ps, List<ClaimCompletion> completions, boolean fenced,
                         Instant now) throws SQLException {
        List<CompletionWrite> writes = completions.stream()
                .map(cc -> CompletionWrite.of(cc.claim().entryId(), cc.claim().token(), cc.completion())).toList();
        long[] ids = PgArrays.longs(writes, CompletionWrite::entryId);
        ps.setObject(1, ids);
        ps.setObject(2, PgArrays.longs(writes, CompletionWrite::token));
        int next = bindWrites(ps, 3, writes);
        if (fenced) {
            EntryRows.setInstant(ps, next++, now);
        }
        ps.setObject(next, ids);
    }

    /**
     * Binds the eleven columns a completion writes (status to dead_letter_reason, as complete_all.sql,
     * complete_all_fenced.sql and slot_complete.sql list them) from parameter {@code first} on; returns
     * the index of the next parameter.
     */
    static int bindWrites(PreparedStatement ps, int first, List<CompletionWrite> writes) throws SQLException {
        int i = first;
        ps.setObject(i++, PgArrays.strings(writes, CompletionWrite::status));
        ps.setObject(i++, PgArrays.nullableInts(writes, CompletionWrite::attemptCount));
        ps.setObject(i++, PgArrays.ints(writes, CompletionWrite::attemptIncrement));
        ps.setObject(i++, PgArrays.booleans(writes, CompletionWrite::setNextAttempt));
        ps.setObject(i++, PgArrays.epochMicros(writes, CompletionWrite::nextAttemptAt));
        ps.setObject(i++, PgArrays.booleans(writes, CompletionWrite::setDeliveredAt));
        ps.setObject(i++, PgArrays.epochMicros(writes, CompletionWrite::deliveredAt));
        ps.setObject(i++, PgArrays.booleans(writes, CompletionWrite::setLastError));
        ps.setObject(i++, PgArrays.strings(writes, CompletionWrite::lastError));
        ps.setObject(i++, PgArrays.booleans(writes, CompletionWrite::setDeadLetterReason));
        ps.setObject(i++, PgArrays.strings(writes, CompletionWrite::deadLetterReason));
        return i;
    }

    @Override
    public Set<Long> extendClaims(Connection c, List<OutboxClaim> claims, Instant expiresAt, long leaseMillis)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("extend_claims"))) {
            bindExtendClaims(ps, claims, expiresAt, leaseMillis);
            Set<Long> moved = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    moved.add(rs.getLong(1));
                }
            }
            return moved;
        }
    }

    /** Binds extend_claims.sql's parameters (also used to EXPLAIN it in tests). */
    public void bindExtendClaims(PreparedStatement ps, List<OutboxClaim> claims, Instant expiresAt,
                          long leaseMillis) throws SQLException {
        EntryRows.setInstant(ps, 1, expiresAt);
        ps.setLong(2, leaseMillis);
        long[] ids = PgArrays.longs(claims, OutboxClaim::entryId);
        ps.setObject(3, ids);
        ps.setObject(4, PgArrays.longs(claims, OutboxClaim::token));
        ps.setObject(5, ids);
    }
}
