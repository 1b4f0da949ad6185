package dev.leasebox.jdbc.lease;

import dev.leasebox.claim.partition.SlotGrant;
import dev.leasebox.claim.partition.SlotOutboxStore;
import dev.leasebox.claim.partition.SlotRegistration;
import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.JdbcUrls;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.dialect.EntryRows;
import dev.leasebox.jdbc.dialect.SlotStatements;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

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
 * The slot operations of partition leases over a PostgreSQL or MariaDB outbox table migrated to V3
 * ({@code V3__add_lease_slots.sql}): see {@link SlotOutboxStore} for the guarantees, and the
 * database's {@link SlotStatements} and {@code slot_*.sql} statements for how each is kept. Claims made here are
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
    private final SlotStatements statements;

    private JdbcSlotStore(DataSource dataSource, JdbcOutboxStore rows, SqlDialect dialect, SlotStatements statements,
                          Clock clock, int slotCount) {
        this.dataSource = dataSource;
        this.rows = rows;
        this.dialect = dialect;
        this.statements = statements;
        this.clock = clock;
        this.where = JdbcUrls.describe(dataSource);
        this.slotCount = slotCount;
    }

    /**
     * Opens the slot operations of {@code rows}' table, checking that V3 is applied (else one line
     * naming the script) and that the database is PostgreSQL or MariaDB.
     */
    public static JdbcSlotStore open(DataSource dataSource, JdbcOutboxStore rows, Clock clock) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(clock, "clock");
        SqlDialect dialect = rows.dialect();
        SlotStatements statements = SlotStatements.of(dialect);
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
            return new JdbcSlotStore(dataSource, rows, dialect, statements, clock, count);
        } catch (SQLException e) {
            if (dialect.isMissingTable(e)) {
                throw new JdbcOutboxException("Partition leases need migration V3 on " + rows.table() + " at " + where
                        + ": " + rows.table() + "_lease_slots does not exist. Apply "
                        + LeaseboxSchema.resourcePath(dialect.kind(), LeaseboxSchema.V3_FILE)
                        + " (leasebox schema --apply --jdbc-url URL [--slots N]), or use --granularity row", e);
            }
            throw new JdbcOutboxException("Partition leases: reading the slots of " + rows.table() + " at " + where
                    + " failed: " + JdbcUrls.rootMessage(e), e);
        }
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
        Set<Integer> registered = run("register slot grants", c -> statements.register(c, grants, now));
        List<SlotGrant> accepted = grants.stream().filter(g -> registered.contains(g.slot())).toList();
        List<Integer> refused = grants.stream().map(SlotGrant::slot).filter(s -> !registered.contains(s)).toList();
        if (refused.isEmpty()) {
            return new SlotRegistration(accepted, Map.of());
        }
        Map<Integer, Long> highWater = run("read refused slots", c -> statements.highWater(c, refused));
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
        SlotStatements.SlotClaim slotClaim = new SlotStatements.SlotClaim(grants, selection, request, now, expiresAt, ordered);
        List<OutboxEntry> claimed = run("claim in slots", c -> statements.claim(c, slotClaim));
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
        return run("select in slots", c -> statements.select(c, grants, selection, now, inFlight, limit, ordered));
    }

    @Override
    public List<CompletionOutcome> completeInSlots(List<SlotCompletion> completions) {
        if (completions.isEmpty()) {
            return List.of();
        }
        completions.forEach(sc -> checkSlot(sc.slot()));
        Instant now = rows.judgedNow();
        Map<Long, OutboxEntry> written = run("complete in slots", c -> statements.complete(c, completions, now));
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
