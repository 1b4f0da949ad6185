package dev.leasebox.jdbc;

import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.partition.SlotGrant;
import dev.leasebox.outbox.partition.SlotOutboxStore;
import dev.leasebox.outbox.partition.SlotRegistration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The slot operations of partition leases over a PostgreSQL outbox table migrated to V3
 * ({@code V3__add_lease_slots.sql}): one statement each (see {@link SlotOutboxStore} for the
 * guarantees and the {@code slot_*.sql} statements for how each is kept). Claims made here are
 * completed and renewed by the table's {@link JdbcOutboxStore}, by token.
 */
public final class JdbcSlotStore implements SlotOutboxStore {

    private final DataSource dataSource;
    /** The row store: its clock judges (the database's, unless it was given an explicit one) and keeps local deadlines. */
    private final JdbcOutboxStore rows;
    private final SqlDialect dialect;
    private final Clock clock;
    private final String where;
    private final int slotCount;
    private final String claimSql;
    private final String orderedClaimSql;
    private final String selectSql;
    private final String orderedSelectSql;

    private JdbcSlotStore(DataSource dataSource, JdbcOutboxStore rows, SqlDialect dialect, Clock clock, int slotCount) {
        this.dataSource = dataSource;
        this.rows = rows;
        this.dialect = dialect;
        this.clock = clock;
        this.where = JdbcUrls.describe(dataSource);
        this.slotCount = slotCount;
        this.claimSql = dialect.sql("slot_claim").replace("${key_order}", "");
        String keyOrder = withoutComments(dialect.sql("slot_key_order"));
        this.orderedClaimSql = dialect.sql("slot_claim").replace("${key_order}", keyOrder);
        this.selectSql = dialect.sql("slot_select").replace("${key_order}", "");
        this.orderedSelectSql = dialect.sql("slot_select").replace("${key_order}", keyOrder);
    }

    /**
     * Opens the slot operations of {@code rows}' table, checking that V3 is applied (else one line
     * naming the script) and that the database is PostgreSQL.
     */
    public static JdbcSlotStore open(DataSource dataSource, JdbcOutboxStore rows, Clock clock) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(clock, "clock");
        SqlDialect dialect = rows.dialect();
        if (dialect.kind() != DatabaseKind.POSTGRESQL) {
            throw new JdbcOutboxException("Partition leases need PostgreSQL; " + rows.table() + " is on "
                    + dialect.kind().folder() + ". Use --lease-granularity row there.");
        }
        if (!rows.usesClaimLeases()) {
            throw new JdbcOutboxException("Partition leases need claims: open the store over " + rows.table()
                    + " with useClaimLeases = true (and V2 and V3 applied)");
        }
        String where = JdbcUrls.describe(dataSource);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(dialect.sql("slot_count"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            int count = rs.getInt(1);
            if (count < 1) {
                throw new JdbcOutboxException("Partition leases: " + rows.table() + "_lease_slots at " + where
                        + " has no slots; V3__add_lease_slots.sql fills it with one row per slot: re-apply it");
            }
            return new JdbcSlotStore(dataSource, rows, dialect, clock, count);
        } catch (SQLException e) {
            if (dialect.isMissingTable(e)) {
                throw new JdbcOutboxException("Partition leases need migration V3 on " + rows.table() + " at " + where
                        + ": " + rows.table() + "_lease_slots does not exist. Apply "
                        + LeaseboxSchema.resourcePath(dialect.kind(), LeaseboxSchema.V3_FILE)
                        + " (leasebox schema --apply --jdbc-url URL [--slots N]), or use --lease-granularity row", e);
            }
            throw new JdbcOutboxException("Partition leases: reading the slots of " + rows.table() + " at " + where
                    + " failed: " + JdbcUrls.rootMessage(e), e);
        }
    }

    private static String withoutComments(String sql) {
        StringBuilder out = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.strip().startsWith("--") && !line.isBlank()) {
                out.append(line.strip()).append('\n');
            }
        }
        return out.toString().strip();
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    @Override
    public long highestSlotFence() {
        return run("read the slots' fences", c -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_count")); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(2);
            }
        });
    }

    @Override
    public SlotRegistration registerGrants(List<SlotGrant> grants) {
        if (grants.isEmpty()) {
            return new SlotRegistration(List.of(), Map.of());
        }
        Set<Integer> seen = new HashSet<>();
        for (SlotGrant g : grants) {
            checkSlot(g.slot());
            if (!seen.add(g.slot())) {
                throw new IllegalArgumentException("registerGrants: two grants for slot " + g.slot());
            }
        }
        Instant now = clock.instant();
        Set<Integer> registered = run("register slot grants", c -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_register"))) {
                ps.setArray(1, c.createArrayOf("integer", grants.stream().map(SlotGrant::slot).toArray()));
                ps.setArray(2, c.createArrayOf("bigint", grants.stream().map(SlotGrant::fence).toArray()));
                ps.setArray(3, c.createArrayOf("text", grants.stream().map(g -> g.lease().owner()).toArray()));
                ps.setArray(4, c.createArrayOf("text", grants.stream().map(g -> EntryRows.text(now)).toArray()));
                Set<Integer> ok = new HashSet<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ok.add(rs.getInt(1));
                    }
                }
                return ok;
            }
        });
        List<SlotGrant> accepted = grants.stream().filter(g -> registered.contains(g.slot())).toList();
        List<Integer> refused = grants.stream().map(SlotGrant::slot).filter(s -> !registered.contains(s)).toList();
        if (refused.isEmpty()) {
            return new SlotRegistration(accepted, Map.of());
        }
        Map<Integer, Long> highWater = run("read refused slots", c -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_high_water"))) {
                ps.setArray(1, c.createArrayOf("integer", refused.toArray()));
                Map<Integer, Long> marks = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        marks.put(rs.getInt(1), rs.getLong(2));
                    }
                }
                return marks;
            }
        });
        return new SlotRegistration(accepted, highWater);
    }

    @Override
    public List<OutboxClaim> claimInSlots(ClaimSelection selection, ClaimRequest request, List<SlotGrant> grants,
                                          boolean ordered) {
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(request, "request");
        if (grants.isEmpty()) {
            return List.of();
        }
        grants.forEach(g -> checkSlot(g.slot()));
        // taken before the statement is sent: the local deadline ends no later than the rows' expiry
        Instant localDeadline = EntryRows.micros(rows.localClock().instant()).plus(request.leaseDuration());
        Instant now = rows.judgedNow();
        Instant expiresAt = rows.databaseJudges() ? null : localDeadline;
        List<OutboxEntry> claimed = run("claim in slots", c -> {
            try (PreparedStatement ps = c.prepareStatement(ordered ? orderedClaimSql : claimSql)) {
                ps.setArray(1, c.createArrayOf("integer", grants.stream().map(SlotGrant::slot).toArray()));
                ps.setArray(2, c.createArrayOf("bigint", grants.stream().map(SlotGrant::fence).toArray()));
                int i = EntryRows.bindSelection(ps, 3, selection);
                EntryRows.setInstant(ps, i++, now);
                EntryRows.setInstant(ps, i++, now);
                ps.setInt(i++, request.batchSize());
                ps.setString(i++, request.owner());
                EntryRows.setInstant(ps, i++, now);
                EntryRows.setInstant(ps, i++, expiresAt);
                ps.setLong(i, request.leaseDuration().toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    return EntryRows.readAll(rs, true);
                }
            }
        });
        return claimed.stream().sorted(Comparator.comparingLong(OutboxEntry::id)).map(EntryRows::claimOf)
                .map(claim -> claim.withExpiresAt(localDeadline)).toList();
    }

    @Override
    public List<SlottedEntry> selectInSlots(ClaimSelection selection, int limit, List<SlotGrant> grants, boolean ordered,
                                            Collection<Long> inFlight) {
        Objects.requireNonNull(selection, "selection");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        if (grants.isEmpty()) {
            return List.of();
        }
        grants.forEach(g -> checkSlot(g.slot()));
        Instant now = rows.judgedNow();
        return run("select in slots", c -> {
            try (PreparedStatement ps = c.prepareStatement(ordered ? orderedSelectSql : selectSql)) {
                ps.setArray(1, c.createArrayOf("integer", grants.stream().map(SlotGrant::slot).toArray()));
                int i = EntryRows.bindSelection(ps, 2, selection);
                EntryRows.setInstant(ps, i++, now);
                EntryRows.setInstant(ps, i++, now);
                ps.setArray(i++, c.createArrayOf("bigint", inFlight.toArray()));
                ps.setInt(i, limit);
                List<SlottedEntry> entries = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        entries.add(new SlottedEntry(rs.getInt("lease_slot"), EntryRows.read(rs, true)));
                    }
                }
                return entries;
            }
        });
    }

    @Override
    public List<CompletionOutcome> completeInSlots(List<SlotCompletion> completions) {
        if (completions.isEmpty()) {
            return List.of();
        }
        completions.forEach(sc -> checkSlot(sc.slot()));
        Instant now = rows.judgedNow();
        Map<Long, OutboxEntry> written = run("complete in slots", c -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_complete"))) {
                bindSlotCompletions(c, ps, completions, now);
                Map<Long, OutboxEntry> rowsWritten = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        OutboxEntry e = EntryRows.read(rs, true);
                        rowsWritten.put(e.id(), e);
                    }
                }
                return rowsWritten;
            }
        });
        CompletionOutcome[] outcomes = new CompletionOutcome[completions.size()];
        List<Long> refused = new ArrayList<>();
        for (int i = 0; i < outcomes.length; i++) {
            OutboxEntry row = written.remove(completions.get(i).claim().entryId());
            if (row != null) {
                outcomes[i] = new CompletionOutcome.Completed(row);
            } else {
                refused.add(completions.get(i).claim().entryId());
            }
        }
        if (!refused.isEmpty()) {
            Map<Long, OutboxEntry> current = new HashMap<>();
            run("read refused rows", c -> dialect.findByIds(c, refused)).forEach(e -> current.put(e.id(), e));
            for (int i = 0; i < outcomes.length; i++) {
                if (outcomes[i] != null) {
                    continue;
                }
                OutboxClaim claim = completions.get(i).claim();
                OutboxEntry row = current.get(claim.entryId());
                if (row == null) {
                    outcomes[i] = new CompletionOutcome.Missing(claim.token(), claim.entryId());
                } else if (row.status().isTerminal()) {
                    outcomes[i] = new CompletionOutcome.AlreadyTerminal(claim.token(), row);
                } else if (row.fenceHighWater() > claim.token()) {
                    outcomes[i] = new CompletionOutcome.Reclaimed(claim.token(), row);
                } else if (!row.status().isClaimCompletable()) {
                    outcomes[i] = new CompletionOutcome.NotCompletable(claim.token(), row);
                } else {
                    // the grant is no longer the slot's newest, or a recorded claim is on the row
                    outcomes[i] = new CompletionOutcome.StaleToken(claim.token(), row);
                }
            }
        }
        return List.of(outcomes);
    }

    /** Binds slot_complete.sql's parameters for {@code completions} (package-private for the plan tests). */
    static void bindSlotCompletions(Connection c, PreparedStatement ps, List<SlotCompletion> completions, Instant now)
            throws SQLException {
        List<CompletionWrite> writes = completions.stream()
                .map(sc -> CompletionWrite.of(sc.claim().entryId(), sc.claim().token(), sc.completion())).toList();
        ps.setArray(1, c.createArrayOf("bigint", writes.stream().map(CompletionWrite::entryId).toArray()));
        ps.setArray(2, c.createArrayOf("integer", completions.stream().map(SlotCompletion::slot).toArray()));
        ps.setArray(3, c.createArrayOf("bigint", writes.stream().map(CompletionWrite::token).toArray()));
        ps.setArray(4, c.createArrayOf("text", writes.stream().map(CompletionWrite::status).toArray()));
        ps.setArray(5, c.createArrayOf("integer", writes.stream().map(CompletionWrite::attemptCount).toArray()));
        ps.setArray(6, c.createArrayOf("integer", writes.stream().map(CompletionWrite::attemptIncrement).toArray()));
        ps.setArray(7, c.createArrayOf("boolean", writes.stream().map(CompletionWrite::setNextAttempt).toArray()));
        ps.setArray(8, c.createArrayOf("text", writes.stream().map(w -> EntryRows.text(w.nextAttemptAt())).toArray()));
        ps.setArray(9, c.createArrayOf("boolean", writes.stream().map(CompletionWrite::setDeliveredAt).toArray()));
        ps.setArray(10, c.createArrayOf("text", writes.stream().map(w -> EntryRows.text(w.deliveredAt())).toArray()));
        ps.setArray(11, c.createArrayOf("boolean", writes.stream().map(CompletionWrite::setLastError).toArray()));
        ps.setArray(12, c.createArrayOf("text", writes.stream().map(CompletionWrite::lastError).toArray()));
        ps.setArray(13, c.createArrayOf("boolean", writes.stream().map(CompletionWrite::setDeadLetterReason).toArray()));
        ps.setArray(14, c.createArrayOf("text", writes.stream().map(CompletionWrite::deadLetterReason).toArray()));
        EntryRows.setInstant(ps, 15, now);
        ps.setArray(16, c.createArrayOf("bigint", writes.stream().map(CompletionWrite::entryId).toArray()));
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= slotCount) {
            throw new IllegalArgumentException("slot " + slot + " is outside 0.." + (slotCount - 1) + " of " + dialect.table());
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T run(String what, SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw new JdbcOutboxException("Partition leases: " + what + " on " + dialect.table() + " at " + where
                    + " failed: " + JdbcUrls.rootMessage(e), e);
        }
    }
}
