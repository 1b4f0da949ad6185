package dev.leasebox.jdbc.dialect;

import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.CandidateSample;
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
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * MariaDB 10.6 or later. Instants are {@code DATETIME(6)} values in UTC, bound and read as such, and
 * the database's clock is {@code UTC_TIMESTAMP(6)}, so neither the server's nor the session's time
 * zone matters. MariaDB has neither arrays nor {@code UPDATE … RETURNING}, so a batch runs as one
 * prepared statement executed per element inside one transaction, and the rows written are read back
 * by primary key in that transaction (their locks held until it commits). Each execution is itself
 * the token- or fence-checked write, never a read-then-write.
 *
 * <p>The {@code database} backend claims in one READ COMMITTED transaction: the candidate ids are read
 * first (without locks), then those still eligible are locked with {@code FOR UPDATE SKIP LOCKED}, so
 * concurrent workers take different rows instead of waiting, and claimed with tokens from the table's
 * sequence ({@code NEXTVAL}).
 */
public final class MariaDbDialect extends SqlDialect {

    /** Candidates read per claimed row wanted, so that rows skipped as locked by others leave enough. */
    private static final int CANDIDATE_SPREAD = 2;
    private static final int CANDIDATE_SLACK = 16;

    MariaDbDialect(TableName table) {
        super(DatabaseKind.MARIADB, table);
    }

    @Override
    public boolean isMissingTable(SQLException e) {
        // 1146: table (or sequence) doesn't exist; 1049: unknown database.
        return e.getErrorCode() == 1146 || e.getErrorCode() == 1049;
    }

    @Override
    public boolean isMissingColumn(SQLException e) {
        return e.getErrorCode() == 1054;
    }

    @Override
    public boolean isDuplicateKey(SQLException e) {
        return e.getErrorCode() == 1062;
    }

    @Override
    public String idArrayType() {
        return "BIGINT";
    }

    // ---- instants: DATETIME(6) in UTC ----------------------------------------------------------------

    @Override
    public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
        EntryRows.setUtcDateTime(ps, index, instant);
    }

    @Override
    OutboxEntry read(ResultSet rs, boolean withClaims) throws SQLException {
        return EntryRows.read(rs, withClaims, true);
    }

    @Override
    List<OutboxEntry> readAll(ResultSet rs, boolean withClaims) throws SQLException {
        return EntryRows.readAll(rs, withClaims, true);
    }

    // ---- reads ---------------------------------------------------------------------------------------

    /**
     * Binds the candidate queries' per-status branches: status, now (due), [now (expiry)], [from], limit; then
     * limit. {@code from} null: the statement has no {@code id >= ?}.
     */
    private int bindCandidates(PreparedStatement ps, ClaimSelection selection, Instant now, Long from, int limit,
                               boolean withClaims) throws SQLException {
        String[] statuses = statuses(selection);
        int i = 1;
        for (String status : statuses) {
            ps.setString(i++, status);
            setInstant(ps, i++, now);
            if (withClaims) {
                setInstant(ps, i++, now);
            }
            if (from != null) {
                ps.setLong(i++, from);
            }
            ps.setInt(i++, limit);
        }
        ps.setInt(i++, limit);
        return i;
    }

    static String[] statuses(ClaimSelection selection) {
        return switch (selection) {
            case PENDING -> new String[] {"PENDING", "DEFERRED", "DEFERRED"};
            case RETRY_READY -> new String[] {"RETRYABLE_FAILURE", "RETRYABLE_FAILURE", "RETRYABLE_FAILURE"};
            case ELIGIBLE -> new String[] {"PENDING", "DEFERRED", "RETRYABLE_FAILURE"};
        };
    }

    @Override
    public List<OutboxEntry> selectEligible(Connection c, ClaimSelection selection, Instant now, int limit, boolean withClaims)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql(withClaims ? "select_eligible" : "select_eligible_without_claims"))) {
            bindCandidates(ps, selection, now, null, limit, withClaims);
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, withClaims);
            }
        }
    }

    @Override
    public List<CandidateSample.Candidate> selectEligibleIds(Connection c, ClaimSelection selection, Instant now, long from,
                                                      int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("select_eligible_ids"))) {
            bindCandidates(ps, selection, now, from, limit, true);
            try (ResultSet rs = ps.executeQuery()) {
                return readCandidates(rs);
            }
        }
    }

    @Override
    public List<OutboxEntry> selectEligibleByIds(Connection c, ClaimSelection selection, Instant now, Collection<Long> ids)
            throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement ps = c.prepareStatement(withIds("select_eligible_by_ids", ids.size()))) {
            int i = MariaDbTransactions.bindLongs(ps, 1, ids);
            i = EntryRows.bindSelection(ps, i, selection);
            setInstant(ps, i++, now);
            setInstant(ps, i, now);
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, true);
            }
        }
    }

    @Override
    public List<OutboxEntry> findByIds(Connection c, Collection<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        try (PreparedStatement ps = c.prepareStatement(withIds("find_by_ids", ids.size()))) {
            MariaDbTransactions.bindLongs(ps, 1, ids);
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, true);
            }
        }
    }

    @Override
    public Optional<OutboxEntry> save(Connection c, OutboxEntry entry, boolean withClaims) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql("save"))) {
            ps.setString(1, entry.status().name());
            ps.setInt(2, entry.attemptCount());
            setInstant(ps, 3, entry.nextAttemptAt().orElse(null));
            setInstant(ps, 4, entry.deliveredAt().orElse(null));
            ps.setString(5, entry.lastError().orElse(null));
            ps.setString(6, entry.deadLetterReason().orElse(null));
            ps.setLong(7, entry.id());
            if (ps.executeUpdate() == 0) {
                return Optional.empty();
            }
        }
        return findById(c, entry.id(), withClaims);
    }

    // ---- claims --------------------------------------------------------------------------------------

    @Override
    public ClaimedRows claimInDatabase(Connection c, ClaimSelection selection, String owner, Instant now,
                                Instant expiresAt, long leaseMillis, long from, int limit) throws SQLException {
        int window = Math.max(limit, limit * CANDIDATE_SPREAD + CANDIDATE_SLACK);
        List<Long> candidates = selectEligibleIds(c, selection, now, from, window).stream()
                .map(CandidateSample.Candidate::id).toList();
        if (candidates.isEmpty()) {
            return new ClaimedRows(List.of(), Set.of());
        }
        return MariaDbTransactions.transaction(c, sql("read_committed"), () -> {
            List<Long> locked = new ArrayList<>();
            Set<Long> takenOver = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(withIds("claim_lock", candidates.size()))) {
                int i = MariaDbTransactions.bindLongs(ps, 1, candidates);
                i = EntryRows.bindSelection(ps, i, selection);
                setInstant(ps, i++, now);
                setInstant(ps, i++, now);
                ps.setInt(i, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        locked.add(rs.getLong(1));
                        rs.getLong(2);
                        if (!rs.wasNull()) {
                            takenOver.add(rs.getLong(1)); // the locked row still carries an expired claim
                        }
                    }
                }
            }
            if (locked.isEmpty()) {
                return new ClaimedRows(List.of(), Set.of());
            }
            try (PreparedStatement ps = c.prepareStatement(withIds("claim_in_database", locked.size()))) {
                ps.setString(1, owner);
                setInstant(ps, 2, now);
                setInstant(ps, 3, expiresAt);
                ps.setLong(4, leaseMillis);
                MariaDbTransactions.bindLongs(ps, 5, locked);
                ps.executeUpdate();
            }
            return new ClaimedRows(findByIds(c, locked), takenOver);
        });
    }

    @Override
    public List<OutboxEntry> recordClaims(Connection c, ClaimSelection selection, Instant now, List<ClaimGrant> grants)
            throws SQLException {
        if (grants.isEmpty()) {
            return List.of();
        }
        return MariaDbTransactions.transaction(c, () -> {
            Map<Long, Long> written = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement(sql("record_claim"))) {
                for (ClaimGrant g : MariaDbTransactions.byId(grants, ClaimGrant::entryId)) {
                    ps.setString(1, g.owner());
                    setInstant(ps, 2, g.claimedAt());
                    setInstant(ps, 3, g.expiresAt());
                    ps.setLong(4, g.token());
                    ps.setLong(5, g.token());
                    ps.setLong(6, g.entryId());
                    ps.setLong(7, g.token());
                    int i = EntryRows.bindSelection(ps, 8, selection);
                    setInstant(ps, i++, now);
                    setInstant(ps, i, now);
                    if (ps.executeUpdate() == 1) {
                        written.put(g.entryId(), g.token());
                    }
                }
            }
            if (written.isEmpty()) {
                return List.of();
            }
            List<OutboxEntry> claimed = new ArrayList<>();
            for (OutboxEntry row : findByIds(c, written.keySet())) {
                if (row.claimToken().isPresent() && row.claimToken().getAsLong() == written.get(row.id())) {
                    claimed.add(row);
                }
            }
            return claimed;
        });
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

    private List<CompletedRow> complete(Connection c, String statement, List<ClaimCompletion> completions,
                                        boolean fenced, Instant now) throws SQLException {
        if (completions.isEmpty()) {
            return List.of();
        }
        return MariaDbTransactions.transaction(c, () -> {
            List<long[]> written = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql(statement))) {
                for (ClaimCompletion cc : MariaDbTransactions.byId(completions, cc -> cc.claim().entryId())) {
                    CompletionWrite w = CompletionWrite.of(cc.claim().entryId(), cc.claim().token(), cc.completion());
                    ps.setString(1, w.status());
                    ps.setObject(2, w.attemptCount());
                    ps.setInt(3, w.attemptIncrement());
                    ps.setBoolean(4, w.setNextAttempt());
                    setInstant(ps, 5, w.nextAttemptAt());
                    ps.setBoolean(6, w.setDeliveredAt());
                    setInstant(ps, 7, w.deliveredAt());
                    ps.setBoolean(8, w.setLastError());
                    ps.setString(9, w.lastError());
                    ps.setBoolean(10, w.setDeadLetterReason());
                    ps.setString(11, w.deadLetterReason());
                    if (fenced) {
                        ps.setLong(12, w.token());
                        ps.setLong(13, w.entryId());
                        ps.setLong(14, w.token());
                        setInstant(ps, 15, now);
                    } else {
                        ps.setLong(12, w.entryId());
                        ps.setLong(13, w.token());
                    }
                    if (ps.executeUpdate() == 1) {
                        written.add(new long[] {w.entryId(), w.token()});
                    }
                }
            }
            if (written.isEmpty()) {
                return List.of();
            }
            Set<Long> ids = new HashSet<>();
            written.forEach(w -> ids.add(w[0]));
            Map<Long, OutboxEntry> rows = new HashMap<>();
            findByIds(c, ids).forEach(e -> rows.put(e.id(), e));
            List<CompletedRow> completed = new ArrayList<>();
            for (long[] w : written) {
                OutboxEntry row = rows.get(w[0]);
                if (row != null) {
                    completed.add(new CompletedRow(w[1], row));
                }
            }
            return completed;
        });
    }

    @Override
    public Set<Long> extendClaims(Connection c, List<OutboxClaim> claims, Instant expiresAt, long leaseMillis)
            throws SQLException {
        if (claims.isEmpty()) {
            return Set.of();
        }
        return MariaDbTransactions.transaction(c, () -> {
            Set<Long> moved = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(sql("extend_claim"))) {
                for (OutboxClaim claim : MariaDbTransactions.byId(claims, OutboxClaim::entryId)) {
                    setInstant(ps, 1, expiresAt);
                    ps.setLong(2, leaseMillis);
                    ps.setLong(3, claim.entryId());
                    ps.setLong(4, claim.token());
                    if (ps.executeUpdate() == 1) {
                        moved.add(claim.entryId());
                    }
                }
            }
            return moved;
        });
    }

    // ---- helpers -------------------------------------------------------------------------------------

    /** Statement {@code name} with its {@code ${ids}} placeholder as {@code count} parameters. */
    String withIds(String name, int count) {
        return sql(name).replace("${ids}", MariaDbTransactions.placeholders(count));
    }
}
