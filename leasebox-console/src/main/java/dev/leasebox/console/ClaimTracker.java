package dev.leasebox.console;

import dev.leasebox.jdbc.OutboxTableStatus;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lease losses and reclaims as the outbox table shows them between two of the console's samples. Only
 * recorded claims are visible (the {@code database} backend, recorded row and partition leases); lean
 * claims write nothing to the row before they complete, so they show here neither claimed nor lost.
 *
 * <ul>
 *   <li>A <b>loss</b> is a claim seen still on its row after its expiry: its holder neither completed nor
 *       extended it in time (the lease was lost, or the worker stalled or died). Each claim token counts once.</li>
 *   <li>A <b>reclaim</b> is a row seen claimed in two consecutive samples under different tokens with no
 *       emission attempt recorded in between: the earlier claim ended without an outcome and another claim
 *       took the row.</li>
 * </ul>
 * What happens between two samples and leaves no trace at the next one is not seen: the numbers are a
 * lower bound, sharper the shorter the sampling interval.
 */
final class ClaimTracker {

    /** What one sample showed: claims live and past expiry now, and the losses and reclaims first seen in it. */
    record Tally(long live, long expired, long losses, long reclaims) {
        static final Tally NONE = new Tally(0, 0, 0, 0);
    }

    private record ClaimKey(long id, long token) {
    }

    private Map<Long, OutboxTableStatus.OpenClaim> previous = new HashMap<>();
    private final Set<ClaimKey> lost = new HashSet<>();

    /** Compares {@code claims} with the previous call's and remembers them for the next. */
    synchronized Tally observe(List<OutboxTableStatus.OpenClaim> claims) {
        Map<Long, OutboxTableStatus.OpenClaim> now = new HashMap<>();
        long live = 0;
        long expired = 0;
        long losses = 0;
        long reclaims = 0;
        Set<ClaimKey> keysNow = new HashSet<>();
        for (OutboxTableStatus.OpenClaim claim : claims) {
            now.put(claim.id(), claim);
            ClaimKey key = new ClaimKey(claim.id(), claim.token());
            keysNow.add(key);
            if (claim.live()) {
                live++;
            } else {
                expired++;
                if (lost.add(key)) {
                    losses++;
                }
            }
            OutboxTableStatus.OpenClaim before = previous.get(claim.id());
            if (before != null && before.token() != claim.token() && before.attempts() == claim.attempts()) {
                reclaims++;
            }
        }
        // a row's tokens only grow, so a claim gone from the table never comes back and can be forgotten
        lost.retainAll(keysNow);
        previous = now;
        return new Tally(live, expired, losses, reclaims);
    }
}
