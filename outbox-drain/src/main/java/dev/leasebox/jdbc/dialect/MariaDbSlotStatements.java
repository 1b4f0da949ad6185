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
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.leasebox.jdbc.dialect.MariaDbTransactions.bindLongs;
import static dev.leasebox.jdbc.dialect.MariaDbTransactions.byId;
import static dev.leasebox.jdbc.dialect.MariaDbTransactions.placeholders;
import static dev.leasebox.jdbc.dialect.MariaDbTransactions.transaction;

/**
 * MariaDB (10.6 or later; tested on 10.11): no arrays and no {@code UPDATE … RETURNING}, so a claim or
 * completion in slots is one READ COMMITTED transaction that first share-locks the caller's slot rows
 * ({@code slot_hold.sql}, {@code LOCK IN SHARE MODE}) and keeps only the slots whose recorded fence is
 * the caller's grant's: a newer grant's registration waits for the transaction, as it waits for
 * PostgreSQL's {@code FOR SHARE}. Rows are then read as candidates and locked by primary key with
 * {@code FOR UPDATE SKIP LOCKED} (claims), or, for completions, the batch (one JSON array read with
 * {@code JSON_TABLE}) locks the rows that pass the fence check and writes them in one multi-table
 * {@code UPDATE}; the rows are read back by primary key. Reads walk the {@code (status, id)} index per status, as
 * the row statements do: {@code lease_slot} is a virtual column without an index on MariaDB.
 * Registration is one conditional {@code UPDATE} per grant, in slot order, in one transaction.
 */
final class MariaDbSlotStatements implements SlotStatements {

    /** Candidates read per claimed row wanted, so that rows skipped as locked by others leave enough (as MariaDbDialect). */
    private static final int CANDIDATE_SPREAD = 2;
    private static final int CANDIDATE_SLACK = 16;

    private final MariaDbDialect dialect;

    MariaDbSlotStatements(MariaDbDialect dialect) {
        this.dialect = dialect;
    }

    private String withSlots(String sql, int count) {
        return sql.replace("${slots}", placeholders(count));
    }

    @Override
    public Set<Integer> register(Connection c, List<SlotGrant> grants, Instant grantedAt) throws SQLException {
        return transaction(c, dialect.sql("read_committed"), () -> {
            Set<Integer> registered = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(dialect.sql("slot_register"))) {
                for (SlotGrant g : byId(grants, SlotGrant::slot)) {
                    ps.setLong(1, g.fence());
                    ps.setString(2, g.lease().owner());
                    dialect.setInstant(ps, 3, grantedAt);
                    ps.setInt(4, g.slot());
                    ps.setLong(5, g.fence());
                    if (ps.executeUpdate() == 1) {
                        registered.add(g.slot());
                    }
                }
            }
            return registered;
        });
    }

    @Override
    public Map<Integer, Long> highWater(Connection c, List<Integer> slots) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(withSlots(dialect.sql("slot_high_water"), slots.size()))) {
            bindLongs(ps, 1, slots);
            return marks(ps);
        }
    }

    private static Map<Integer, Long> marks(PreparedStatement ps) throws SQLException {
        Map<Integer, Long> marks = new HashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                marks.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return marks;
    }

    /** Share-locks the rows of {@code slots} until the transaction ends; their recorded fences. */
    private Map<Integer, Long> hold(Connection c, Collection<Integer> slots) throws SQLException {
        List<Integer> ordered = new ArrayList<>(new TreeSet<>(slots));
        try (PreparedStatement ps = c.prepareStatement(withSlots(dialect.sql("slot_hold"), ordered.size()))) {
            bindLongs(ps, 1, ordered);
            return marks(ps);
        }
    }

    @Override
    public List<OutboxEntry> claim(Connection c, SlotClaim claim) throws SQLException {
        return transaction(c, dialect.sql("read_committed"), () -> {
            Map<Integer, Long> marks = hold(c, claim.grants().stream().map(SlotGrant::slot).toList());
            List<Integer> held = claim.grants().stream().filter(g -> Long.valueOf(g.fence()).equals(marks.get(g.slot())))
                    .map(SlotGrant::slot).sorted().toList();
            if (held.isEmpty()) {
                return List.of();
            }
            int limit = claim.request().batchSize();
            int window = Math.max(limit, limit * CANDIDATE_SPREAD + CANDIDATE_SLACK);
            List<Long> candidates = read(c, held, claim.selection(), claim.now(), List.of(), window, claim.ordered())
                    .stream().map(e -> e.entry().id()).toList();
            List<Long> locked = candidates.isEmpty() ? List.of() : lock(c, candidates, held, claim);
            if (locked.isEmpty()) {
                return List.of();
            }
            try (PreparedStatement ps = c.prepareStatement(dialect.withIds("slot_claim", locked.size()))) {
                ps.setString(1, claim.request().owner());
                dialect.setInstant(ps, 2, claim.now());
                dialect.setInstant(ps, 3, claim.expiresAt());
                ps.setLong(4, claim.request().leaseDuration().toMillis());
                bindLongs(ps, 5, locked);
                ps.executeUpdate();
            }
            return dialect.findByIds(c, locked);
        });
    }

    /** Locks those {@code candidates} still eligible in the {@code held} slots, skipping rows others hold; their ids. */
    private List<Long> lock(Connection c, List<Long> candidates, List<Integer> held, SlotClaim claim) throws SQLException {
        String sql = withSlots(SlotStatements.keyOrdered(dialect, dialect.withIds("slot_claim_lock", candidates.size()),
                claim.ordered()), held.size());
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = bindLongs(ps, 1, candidates);
            i = bindLongs(ps, i, held);
            i = EntryRows.bindSelection(ps, i, claim.selection());
            dialect.setInstant(ps, i++, claim.now());
            dialect.setInstant(ps, i++, claim.now());
            ps.setInt(i, claim.request().batchSize());
            List<Long> locked = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.add(rs.getLong(1));
                }
            }
            return locked;
        }
    }

    @Override
    public List<SlottedEntry> select(Connection c, List<SlotGrant> grants, ClaimSelection selection, Instant now,
                                     Collection<Long> inFlight, int limit, boolean ordered) throws SQLException {
        return read(c, grants.stream().map(SlotGrant::slot).toList(), selection, now, inFlight, limit, ordered);
    }

    /** slot_select.sql: each status branch binds status, slots, now, now, ids in flight, limit; then the limit. */
    private List<SlottedEntry> read(Connection c, List<Integer> slots, ClaimSelection selection, Instant now,
                                    Collection<Long> inFlight, int limit, boolean ordered) throws SQLException {
        String sql = SlotStatements.keyOrdered(dialect, withSlots(dialect.sql("slot_select"), slots.size()), ordered)
                .replace("${not_in_flight}", inFlight.isEmpty() ? "" : "AND o.id NOT IN (" + placeholders(inFlight.size()) + ")");
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (String status : MariaDbDialect.statuses(selection)) {
                ps.setString(i++, status);
                i = bindLongs(ps, i, slots);
                dialect.setInstant(ps, i++, now);
                dialect.setInstant(ps, i++, now);
                i = bindLongs(ps, i, inFlight);
                ps.setInt(i++, limit);
            }
            ps.setInt(i, limit);
            List<SlottedEntry> entries = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    entries.add(new SlottedEntry(rs.getInt("lease_slot"), dialect.read(rs, true)));
                }
            }
            return entries;
        }
    }

    @Override
    public Map<Long, OutboxEntry> complete(Connection c, List<SlotCompletion> completions, Instant now)
            throws SQLException {
        return transaction(c, dialect.sql("read_committed"), () -> {
            Map<Integer, Long> marks = hold(c, completions.stream().map(SlotCompletion::slot).toList());
            List<SlotCompletion> held = completions.stream()
                    .filter(sc -> Long.valueOf(sc.claim().token()).equals(marks.get(sc.slot()))).toList();
            Map<Long, OutboxEntry> rows = new HashMap<>();
            if (held.isEmpty()) {
                return rows;
            }
            String batch = completionsJson(held);
            List<Long> ids = new ArrayList<>(new TreeSet<>(held.stream().map(sc -> sc.claim().entryId()).toList()));
            List<Long> locked = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(dialect.withIds("slot_complete_lock", ids.size()))) {
                ps.setString(1, batch);
                int i = bindLongs(ps, 2, ids);
                dialect.setInstant(ps, i, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        locked.add(rs.getLong(1));
                    }
                }
            }
            if (locked.isEmpty()) {
                return rows;
            }
            try (PreparedStatement ps = c.prepareStatement(dialect.withIds("slot_complete", locked.size()))) {
                ps.setString(1, batch);
                bindLongs(ps, 2, locked);
                ps.executeUpdate();
            }
            dialect.findByIds(c, locked).forEach(e -> rows.put(e.id(), e));
            return rows;
        });
    }

    private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);

    /** The completions as slot_complete.sql's JSON array: per element the columns of its {@link CompletionWrite}. */
    static String completionsJson(List<SlotCompletion> completions) {
        StringBuilder out = new StringBuilder(completions.size() * 160).append('[');
        for (SlotCompletion sc : completions) {
            CompletionWrite w = CompletionWrite.of(sc.claim().entryId(), sc.claim().token(), sc.completion());
            out.append(out.length() == 1 ? "{" : ",{").append("\"id\":").append(w.entryId())
                    .append(",\"slot\":").append(sc.slot()).append(",\"token\":").append(w.token());
            text(out, "status", w.status());
            out.append(",\"attemptCount\":").append(w.attemptCount() == null ? "null" : w.attemptCount().toString())
                    .append(",\"attemptIncrement\":").append(w.attemptIncrement());
            flag(out, "setNextAttempt", w.setNextAttempt());
            text(out, "nextAttemptAt", w.nextAttemptAt() == null ? null : DATETIME.format(w.nextAttemptAt()));
            flag(out, "setDelivered", w.setDeliveredAt());
            text(out, "deliveredAt", w.deliveredAt() == null ? null : DATETIME.format(w.deliveredAt()));
            flag(out, "setLastError", w.setLastError());
            text(out, "lastError", w.lastError());
            flag(out, "setDeadLetterReason", w.setDeadLetterReason());
            text(out, "deadLetterReason", w.deadLetterReason());
            out.append('}');
        }
        return out.append(']').toString();
    }

    private static void flag(StringBuilder out, String name, boolean value) {
        out.append(",\"").append(name).append("\":").append(value ? 1 : 0);
    }

    private static void text(StringBuilder out, String name, String value) {
        out.append(",\"").append(name).append("\":");
        if (value == null) {
            out.append("null");
        } else {
            HeadersJson.quote(value, out);
        }
    }

    @Override
    public Set<String> heartbeat(Connection c, String owner, Instant now, Instant expiresAt) throws SQLException {
        try (PreparedStatement beat = c.prepareStatement(dialect.sql("workers_heartbeat"));
             PreparedStatement forget = c.prepareStatement(dialect.sql("workers_forget"));
             PreparedStatement live = c.prepareStatement(dialect.sql("workers_live"))) {
            beat.setString(1, owner);
            dialect.setInstant(beat, 2, now);
            dialect.setInstant(beat, 3, expiresAt);
            beat.executeUpdate();
            dialect.setInstant(forget, 1, now);
            forget.executeUpdate();
            dialect.setInstant(live, 1, now);
            Set<String> members = new HashSet<>();
            members.add(owner);
            try (ResultSet rs = live.executeQuery()) {
                while (rs.next()) {
                    members.add(rs.getString(1));
                }
            }
            return members;
        }
    }
}
