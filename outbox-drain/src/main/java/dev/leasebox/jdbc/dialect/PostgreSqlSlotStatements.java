package dev.leasebox.jdbc.dialect;

import dev.leasebox.claim.partition.SlotGrant;
import dev.leasebox.claim.partition.SlotOutboxStore.SlotCompletion;
import dev.leasebox.claim.partition.SlotOutboxStore.SlottedEntry;
import dev.leasebox.outbox.ClaimSelection;
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
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL: each operation is one statement, its batch bound as arrays and joined with
 * {@code unnest}; the slot rows are share-locked inside the claiming and completing statements
 * ({@code FOR SHARE OF s}).
 */
public final class PostgreSqlSlotStatements implements SlotStatements {

    private final SqlDialect dialect;
    /** slot_claim.sql and slot_select.sql, unordered [0] and ordered [1]. */
    private final String[] claimSql = new String[2];
    private final String[] selectSql = new String[2];

    PostgreSqlSlotStatements(SqlDialect dialect) {
        this.dialect = dialect;
        for (int ordered = 0; ordered < 2; ordered++) {
            claimSql[ordered] = SlotStatements.keyOrdered(dialect, dialect.sql("slot_claim"), ordered == 1);
            selectSql[ordered] = SlotStatements.keyOrdered(dialect, dialect.sql("slot_select"), ordered == 1);
        }
    }

    @Override
    public Set<Integer> register(Connection c, List<SlotGrant> grants, Instant grantedAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_register"))) {
            ps.setArray(1, c.createArrayOf("integer", grants.stream().map(SlotGrant::slot).toArray()));
            ps.setArray(2, c.createArrayOf("bigint", grants.stream().map(SlotGrant::fence).toArray()));
            ps.setArray(3, c.createArrayOf("text", grants.stream().map(g -> g.lease().owner()).toArray()));
            ps.setArray(4, c.createArrayOf("text", grants.stream().map(g -> EntryRows.text(grantedAt)).toArray()));
            Set<Integer> ok = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ok.add(rs.getInt(1));
                }
            }
            return ok;
        }
    }

    @Override
    public Map<Integer, Long> highWater(Connection c, List<Integer> slots) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_high_water"))) {
            ps.setArray(1, c.createArrayOf("integer", slots.toArray()));
            Map<Integer, Long> marks = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    marks.put(rs.getInt(1), rs.getLong(2));
                }
            }
            return marks;
        }
    }

    @Override
    public List<OutboxEntry> claim(Connection c, SlotClaim claim) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(claimSql[claim.ordered() ? 1 : 0])) {
            ps.setArray(1, c.createArrayOf("integer", claim.grants().stream().map(SlotGrant::slot).toArray()));
            ps.setArray(2, c.createArrayOf("bigint", claim.grants().stream().map(SlotGrant::fence).toArray()));
            int i = EntryRows.bindSelection(ps, 3, claim.selection());
            EntryRows.setInstant(ps, i++, claim.now());
            EntryRows.setInstant(ps, i++, claim.now());
            ps.setInt(i++, claim.request().batchSize());
            ps.setString(i++, claim.request().owner());
            EntryRows.setInstant(ps, i++, claim.now());
            EntryRows.setInstant(ps, i++, claim.expiresAt());
            ps.setLong(i, claim.request().leaseDuration().toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                return EntryRows.readAll(rs, true);
            }
        }
    }

    @Override
    public List<SlottedEntry> select(Connection c, List<SlotGrant> grants, ClaimSelection selection, Instant now,
                                     Collection<Long> inFlight, int limit, boolean ordered) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(selectSql[ordered ? 1 : 0])) {
            ps.setArray(1, c.createArrayOf("integer", grants.stream().map(SlotGrant::slot).toArray()));
            int i = EntryRows.bindSelection(ps, 2, selection);
            EntryRows.setInstant(ps, i++, now);
            EntryRows.setInstant(ps, i++, now);
            ps.setArray(i++, c.createArrayOf("bigint", inFlight.toArray()));
            ps.setInt(i, limit);
            List<SlottedEntry> entries = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                EntryRows.Reader rows = new EntryRows.Reader(rs, true, false);
                int slot = rs.findColumn("lease_slot");
                while (rs.next()) {
                    entries.add(new SlottedEntry(rs.getInt(slot), rows.read()));
                }
            }
            return entries;
        }
    }

    @Override
    public Map<Long, OutboxEntry> complete(Connection c, List<SlotCompletion> completions, Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_complete"))) {
            bindCompletions(ps, completions, now);
            Map<Long, OutboxEntry> written = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                EntryRows.Reader rows = new EntryRows.Reader(rs, true, false);
                while (rs.next()) {
                    OutboxEntry e = rows.read();
                    written.put(e.id(), e);
                }
            }
            return written;
        }
    }

    /** Binds slot_complete.sql's parameters for {@code completions} (package-private for the plan tests). */
    public static void bindCompletions(PreparedStatement ps, List<SlotCompletion> completions, Instant now)
            throws SQLException {
        List<CompletionWrite> writes = completions.stream()
                .map(sc -> CompletionWrite.of(sc.claim().entryId(), sc.claim().token(), sc.completion())).toList();
        long[] ids = PgArrays.longs(writes, CompletionWrite::entryId);
        ps.setObject(1, ids);
        ps.setObject(2, PgArrays.ints(completions, SlotCompletion::slot));
        ps.setObject(3, PgArrays.longs(writes, CompletionWrite::token));
        int next = PostgreSqlDialect.bindWrites(ps, 4, writes);
        EntryRows.setInstant(ps, next++, now);
        ps.setObject(next, ids);
    }

    @Override
    public Set<String> heartbeat(Connection c, String owner, Instant now, Instant expiresAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dialect.sql("workers_heartbeat"))) {
            ps.setString(1, owner);
            EntryRows.setInstant(ps, 2, now);
            EntryRows.setInstant(ps, 3, expiresAt);
            EntryRows.setInstant(ps, 4, now);
            EntryRows.setInstant(ps, 5, now);
            Set<String> members = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    members.add(rs.getString(1));
                }
            }
            return members;
        }
    }
}
