package dev.leasebox.drain;

/**
 * What one drain cycle (or several, summed) did.
 *
 * @param claimed      entries claimed (selected, on the non-claiming path)
 * @param delivered    DELIVERED written
 * @param deferred     DEFERRED written
 * @param retry        RETRYABLE_FAILURE written (a retry is scheduled)
 * @param deadLettered DEAD_LETTERED written
 * @param abandoned    claims lost before their result was written: nothing written, reclaimed after expiry
 * @param stale        completions the store refused (stale token or terminal row): nothing written
 * @param released     claims handed back unemitted (shutdown, claims at risk)
 */
public record CycleResult(int claimed, int delivered, int deferred, int retry, int deadLettered, int abandoned,
                          int stale, int released) {

    /** A cycle that found nothing. */
    public static final CycleResult EMPTY = new CycleResult(0, 0, 0, 0, 0, 0, 0, 0);

    /** Whether the cycle took no entries. */
    public boolean isIdle() {
        return claimed == 0;
    }

    /** Both results summed. */
    public CycleResult plus(CycleResult o) {
        return new CycleResult(claimed + o.claimed, delivered + o.delivered, deferred + o.deferred, retry + o.retry,
                deadLettered + o.deadLettered, abandoned + o.abandoned, stale + o.stale, released + o.released);
    }
}
