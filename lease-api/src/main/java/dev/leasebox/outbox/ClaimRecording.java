package dev.leasebox.outbox;

import java.util.List;
import java.util.Set;

/**
 * What {@link FencedOutboxStore#recordClaims} did with a batch of grants.
 *
 * @param recorded   the claims now on their rows
 * @param refused    the grants that did not become claims, with the reason
 * @param takenOver  the entry ids of those recorded claims that took their row over from an earlier claim
 *                   still on it, expired and never completed (its holder died, stalled past its lease or lost
 *                   it): each is another holder's lease loss, seen by the worker that took the row. Empty
 *                   where the store cannot tell.
 */
public record ClaimRecording(List<OutboxClaim> recorded, List<Refusal> refused, Set<Long> takenOver) {

    public ClaimRecording {
        recorded = List.copyOf(recorded);
        refused = List.copyOf(refused);
        takenOver = Set.copyOf(takenOver);
    }

    /** A recording that says nothing of takeovers. */
    public ClaimRecording(List<OutboxClaim> recorded, List<Refusal> refused) {
        this(recorded, refused, Set.of());
    }

    /** Why a grant did not become a claim. */
    public enum Reason {
        /** The grant's fence is not above the row's fence high-water mark: the coordinator's counter went back. */
        FENCE_NOT_ABOVE_HIGH_WATER,
        /** The row is no longer eligible (claimed by someone else, completed, or not due). */
        NOT_ELIGIBLE,
        /** No such row. */
        MISSING
    }

    /**
     * @param grant          the refused grant
     * @param reason         why
     * @param fenceHighWater the row's high-water mark when known (0 otherwise)
     */
    public record Refusal(ClaimGrant grant, Reason reason, long fenceHighWater) {
    }
}
