package dev.leasebox.outbox;

/**
 * The provider-neutral emission state of an outbox entry, as in the design record.
 *
 * <p>There is deliberately no CLAIMED or IN_PROGRESS status: a claim is a lease over a row, kept in
 * the claim fields of {@link OutboxEntry}, not an emission state.
 */
public enum EmissionStatus {
    /** Waiting for its first emission (or released unemitted). Eligible when due. */
    PENDING,
    /** The provider accepted it. Terminal. */
    DELIVERED,
    /** The provider asked to try again later; eligible again at its next attempt time. */
    DEFERRED,
    /**
     * Failed without a retry time: parked for an operator. Not eligible, and not completable by the
     * claim path; the drain itself never writes it (it retries or dead-letters).
     */
    FAILED,
    /** Failed, to be retried at its next attempt time. */
    RETRYABLE_FAILURE,
    /** Given up: max attempts reached or a permanent error. Terminal. */
    DEAD_LETTERED;

    /** Terminal entries are never claimed or emitted again. */
    public boolean isTerminal() {
        return this == DELIVERED || this == DEAD_LETTERED;
    }

    /** Statuses from which the claim path may complete a claimed row. */
    public boolean isClaimCompletable() {
        return this == PENDING || this == DEFERRED || this == RETRYABLE_FAILURE;
    }

    /** Selected by {@code claimPending}/{@code findPending} when due: first attempts and deferrals. */
    public boolean isPendingKind() {
        return this == PENDING || this == DEFERRED;
    }

    /** Selected by {@code claimRetryReady}/{@code findRetryReady} when due. */
    public boolean isRetryKind() {
        return this == RETRYABLE_FAILURE;
    }
}
