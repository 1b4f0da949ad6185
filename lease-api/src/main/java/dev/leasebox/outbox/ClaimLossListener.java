package dev.leasebox.outbox;

import java.util.Set;

/**
 * Told by an {@link OutboxClaimStore} whose claims rest on external leases when some of those
 * leases are lost. The drain abandons those claims: their emissions are not finalized. Also told, by
 * any store that can see it, when its own claims took rows over from earlier claims that had lapsed
 * unfinished ({@link #claimsTakenOver}).
 */
public interface ClaimLossListener {

    /** The claims on these entry ids are lost. */
    void claimsLost(Set<Long> entryIds, String cause);

    /** Claims cannot currently be proven held; start no new emissions until {@link #claimsSafeAgain()}. */
    default void claimsAtRisk(String cause) {
    }

    /** The store has verified its remaining claims after {@link #claimsAtRisk(String)}. */
    default void claimsSafeAgain() {
    }

    /**
     * Claims just made by this store took these rows over from earlier claims still on them, expired and
     * never completed: another holder's (or an earlier claim of this worker's) lease loss, seen from the row.
     * The new claims are valid; this is for counting. Called on the claiming thread, during the claim call.
     */
    default void claimsTakenOver(Set<Long> entryIds) {
    }
}
