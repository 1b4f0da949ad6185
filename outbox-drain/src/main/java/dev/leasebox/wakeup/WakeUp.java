package dev.leasebox.wakeup;

/**
 * A hint that entries may be waiting, given to {@link dev.leasebox.drain.OutboxDrain#wakeUp(WakeUp)} by a writer, a database
 * notification or a coordinator's message. A hint is never a promise and never a claim: a drain that acts
 * on one still takes entries only through its claim store, and a drain that gets none still finds every
 * entry by polling. Hints coalesce: any number given while a cycle runs cause one more cycle after it.
 */
public enum WakeUp {
    /** Entries were committed: run a cycle now. */
    COMMITTED,
    /**
     * Entries were written in a transaction that has not committed yet, whose commit the writer cannot
     * observe: look shortly, and a few times (5, 10, 20, 40 and 80 ms apart).
     */
    COMMIT_PENDING
}
