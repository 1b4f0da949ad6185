package dev.leasebox.outbox;

/** Which eligible entries a claim or a candidate search selects. */
public enum ClaimSelection {
    /** PENDING and due DEFERRED entries ({@code claimPending}). */
    PENDING,
    /** Due RETRYABLE_FAILURE entries ({@code claimRetryReady}). */
    RETRY_READY,
    /** Both, in one round trip: what the drain uses. */
    ELIGIBLE;

    /** Whether an entry with this status is of the selected kind (due-ness and claims aside). */
    public boolean selects(EmissionStatus status) {
        return switch (this) {
            case PENDING -> status.isPendingKind();
            case RETRY_READY -> status.isRetryKind();
            case ELIGIBLE -> status.isPendingKind() || status.isRetryKind();
        };
    }
}
