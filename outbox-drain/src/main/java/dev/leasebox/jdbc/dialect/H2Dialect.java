package dev.leasebox.jdbc.dialect;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimSelection;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.Set;

/**
 * H2 (embedded, for tests and single-process use): no partial indexes and no array joins in
 * UPDATE, so batches run as one prepared statement executed per element on one connection; in an
 * embedded database that costs no network round trip. Each execution is itself the token- and
 * fence-checked write ({@code SELECT … FROM FINAL TABLE (UPDATE …)}), never a read-then-write.
 * The {@code database} backend is optimistic: its UPDATE re-checks eligibility on the row it writes.
 * Under heavy concurrency H2's {@code FINAL TABLE (UPDATE … WHERE id IN (subquery))} was seen to
 * return a row to two claimers (the contract kit's concurrent-claimers test, intermittently), so
 * claims on one H2 database and table are also serialized within this JVM — which is where an
 * embedded H2 database lives. Use PostgreSQL for workers in several processes.
 */
public final class H2Dialect extends SqlDialect {

    private static final ConcurrentMap<String, Object> CLAIM_LOCKS = new ConcurrentHashMap<>();

    H2Dialect(TableName table) {
        super(DatabaseKind.H2, table);
    }

    private Object claimLock(Connection c) throws SQLException {
        return CLAIM_LOCKS.computeIfAbsent(c.getMetaData().getURL() + "|" + table().qualified(), key -> new Object());
    }

    @Override
    public boolean isMissingTable(SQLException e) {
        // 42102/42103/42104: table not found (plain, with candidates, in an empty database); 90079: schema not found.
        int code = e.getErrorCode();
        return code == 42102 || code == 42103 || code == 42104 || code == 90079;
    }

    @Override
    public boolean isMissingColumn(SQLException e) {
        return e.getErrorCode() == 42122;
    }

    @Override
    public String idArrayType() {
        return "BIGINT";
    }

    @Override
    public ClaimedRows claimInDatabase(Connection c, ClaimSelection selection, String owner, Instant now,
                                Instant expiresAt, long leaseMillis, long from, int limit) throws SQLException {
        synchronized (claimLock(c)) {
            // FINAL TABLE returns the rows as written only: which ones carried an expired claim is not told here
            return new ClaimedRows(claimSerialized(c, selection, owner, now, expiresAt, leaseMillis, from, limit),
                    java.util.Set.of());
        }
    }

    private List<OutboxEntry> claimSerialized(Connection c, ClaimSelection selection, String owner, Instant now,
                                              Instant expiresAt, long leaseMillis, long from, int limit)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("claim_in_database"))) {
            ps.setString(1, owner);
            EntryRows.setInstant(ps, 2, now);
            EntryRows.setInstant(ps, 3, expiresAt);
            ps.setLong(4, leaseMillis);
            int i = EntryRows.bindSelection(ps, 5, selection);
            EntryRows.setInstant(ps, i++, now);
            EntryRows.setInstant(ps, i++, now);
            ps.setLong(i++, from);
            ps.setInt(i++, limit);
            i = EntryRows.bindSelection(ps, i, selection);
            EntryRows.setInstant(ps, i++, now);
            EntryRows.setInstant(ps, i, now);
            try (ResultSet rs = ps.executeQuery()) {
                List<OutboxEntry> claimed = EntryRows.readAll(rs, true);
                claimed.sort((a, b) -> Long.compare(a.id(), b.id()));
                return claimed;
            }
        }
    }

    @Override
    public List<OutboxEntry> recordClaims(Connection c, ClaimSelection selection, Instant now, List<ClaimGrant> grants)
            throws SQLException {
        List<OutboxEntry> claimed = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql("record_claim"))) {
            for (ClaimGrant g : grants) {
                ps.setString(1, g.owner());
                EntryRows.setInstant(ps, 2, g.claimedAt());
                EntryRows.setInstant(ps, 3, g.expiresAt());
                ps.setLong(4, g.token());
                ps.setLong(5, g.token());
                ps.setLong(6, g.entryId());
                ps.setLong(7, g.token());
                int i = EntryRows.bindSelection(ps, 8, selection);
                EntryRows.setInstant(ps, i++, now);
                EntryRows.setInstant(ps, i, now);
                try (ResultSet rs = ps.executeQuery()) {
                    claimed.addAll(EntryRows.readAll(rs, true));
                }
            }
        }
        return claimed;
    }

    @Override
    public List<CompletedRow> completeAll(Connection c, List<ClaimCompletion> completions) throws SQLException {
        return complete(c, "complete", completions, false, null);
    }

    @Override
    public List<CompletedRow> completeAllFenced(Connection c, List<ClaimCompletion> completions, Instant now)
            throws SQLException {
        return complete(c, "complete_fenced", completions, true, now);
    }

    /**
     * {@code fenced}: a lean completion, where {@code now} is the instant an unexpired recorded claim is judged at
     * (null: the database's clock).
     */
    private List<CompletedRow> complete(Connection c, String statement, List<ClaimCompletion> completions,
                                        boolean fenced, Instant now) throws SQLException {
        List<CompletedRow> completed = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql(statement))) {
            for (ClaimCompletion cc : completions) {
                CompletionWrite w = CompletionWrite.of(cc.claim().entryId(), cc.claim().token(), cc.completion());
                ps.setString(1, w.status());
                ps.setObject(2, w.attemptCount());
                ps.setInt(3, w.attemptIncrement());
                ps.setBoolean(4, w.setNextAttempt());
                EntryRows.setInstant(ps, 5, w.nextAttemptAt());
                ps.setBoolean(6, w.setDeliveredAt());
                EntryRows.setInstant(ps, 7, w.deliveredAt());
                ps.setBoolean(8, w.setLastError());
                ps.setString(9, w.lastError());
                ps.setBoolean(10, w.setDeadLetterReason());
                ps.setString(11, w.deadLetterReason());
                if (fenced) {
                    ps.setLong(12, w.token());
                    ps.setLong(13, w.entryId());
                    ps.setLong(14, w.token());
                    EntryRows.setInstant(ps, 15, now);
                } else {
                    ps.setLong(12, w.entryId());
                    ps.setLong(13, w.token());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    for (OutboxEntry row : EntryRows.readAll(rs, true)) {
                        completed.add(new CompletedRow(w.token(), row));
                    }
                }
            }
        }
        return completed;
    }

    @Override
    public Set<Long> extendClaims(Connection c, List<OutboxClaim> claims, Instant expiresAt, long leaseMillis)
            throws SQLException {
        Set<Long> moved = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(sql("extend_claim"))) {
            for (OutboxClaim claim : claims) {
                EntryRows.setInstant(ps, 1, expiresAt);
                ps.setLong(2, leaseMillis);
                ps.setLong(3, claim.entryId());
                ps.setLong(4, claim.token());
                if (ps.executeUpdate() == 1) {
                    moved.add(claim.entryId());
                }
            }
        }
        return moved;
    }
}
