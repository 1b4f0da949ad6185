package dev.leasebox.outbox;

import java.util.Set;

/**
 * Told by an {@link OutboxClaimStore} whose claims rest on external leases when some of those
 * leases are lost. The drain abandons those claims: their emissions are not finalized.
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
}
