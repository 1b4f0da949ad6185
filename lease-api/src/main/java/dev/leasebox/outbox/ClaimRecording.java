package dev.leasebox.outbox;

import java.util.List;

/**
 * What {@link FencedOutboxStore#recordClaims} did with a batch of grants.
 *
 * @param recorded the claims now on their rows
 * @param refused  the grants that did not become claims, with the reason
 */
public record ClaimRecording(List<OutboxClaim> recorded, List<Refusal> refused) {

    public ClaimRecording {
        recorded = List.copyOf(recorded);
        refused = List.copyOf(refused);
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
