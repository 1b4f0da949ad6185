package dev.leasebox.jdbc.store;

import dev.leasebox.jdbc.dialect.EntryRows;
import dev.leasebox.jdbc.dialect.SqlDialect;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link JdbcOutboxStore#recordClaims}: writes granted claims in one statement, then, only when some
 * grant was refused, reads those rows once to say why (missing, fence not above the high-water mark,
 * or not eligible). The recorded claims on rows the candidate read found lapsed are reported as taken
 * over ({@link LapsedCandidates}).
 */
final class ClaimRecorder {

    private final OutboxConnections sql;
    private final SqlDialect dialect;
    private final boolean durable;
    private final LapsedCandidates lapsed;

    ClaimRecorder(OutboxConnections sql, SqlDialect dialect, boolean durable, LapsedCandidates lapsed) {
        this.sql = sql;
        this.dialect = dialect;
        this.durable = durable;
        this.lapsed = lapsed;
    }

    ClaimRecording record(ClaimSelection selection, Instant now, List<ClaimGrant> grants) {
        if (grants.isEmpty()) {
            return new ClaimRecording(List.of(), List.of());
        }
        requireOneGrantPerEntry(grants);
        List<OutboxEntry> claimed = durable
                ? sql.run("record claims", c -> dialect.recordClaims(c, selection, now, grants))
                : sql.run("record claims", c -> sql.withoutDurability(c, () -> dialect.recordClaims(c, selection, now, grants)));
        Set<Long> claimedIds = new HashSet<>();
        List<OutboxClaim> recorded = new ArrayList<>();
        for (OutboxEntry e : claimed) {
            claimedIds.add(e.id());
            recorded.add(EntryRows.claimOf(e));
        }
        recorded.sort(Comparator.comparingLong(OutboxClaim::entryId));
        Set<Long> takenOver = lapsed.takenOver(claimedIds);
        List<ClaimGrant> refusedGrants = grants.stream().filter(g -> !claimedIds.contains(g.entryId())).toList();
        if (refusedGrants.isEmpty()) {
            return new ClaimRecording(recorded, List.of(), takenOver);
        }
        List<ClaimRecording.Refusal> refused = refusals(refusedGrants);
        // a fence refused as not above the mark is tried again once the floor is raised: keep its flag for that
        lapsed.forget(refused.stream().filter(r -> r.reason() != ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER)
                .map(r -> r.grant().entryId()).toList());
        return new ClaimRecording(recorded, refused, takenOver);
    }

    private static void requireOneGrantPerEntry(List<ClaimGrant> grants) {
        Set<Long> seen = new HashSet<>();
        for (ClaimGrant g : grants) {
            if (!seen.add(g.entryId())) {
                throw new IllegalArgumentException("recordClaims: two grants for entry " + g.entryId());
            }
        }
    }

    private List<ClaimRecording.Refusal> refusals(List<ClaimGrant> refusedGrants) {
        Map<Long, OutboxEntry> rows = sql.readRows(refusedGrants.stream().map(ClaimGrant::entryId).toList());
        List<ClaimRecording.Refusal> refused = new ArrayList<>();
        for (ClaimGrant g : refusedGrants) {
            OutboxEntry row = rows.get(g.entryId());
            if (row == null) {
                refused.add(new ClaimRecording.Refusal(g, ClaimRecording.Reason.MISSING, 0));
            } else if (g.token() <= row.fenceHighWater()) {
                refused.add(new ClaimRecording.Refusal(g, ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER,
                        row.fenceHighWater()));
            } else {
                refused.add(new ClaimRecording.Refusal(g, ClaimRecording.Reason.NOT_ELIGIBLE, row.fenceHighWater()));
            }
        }
        return refused;
    }
}
