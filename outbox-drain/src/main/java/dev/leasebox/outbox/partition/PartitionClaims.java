package dev.leasebox.outbox.partition;

/** How a worker with partition leases claims rows of its slots. */
public enum PartitionClaims {
    /**
     * Each batch is claimed by one statement that writes the claim (owner, expiry, token) on the rows
     * before anything is emitted; operators see every claim; completions are checked by token.
     */
    RECORDED,
    /**
     * Nothing is written before the emission: the slot lease is the claim. Rows are read (one
     * statement), emitted, and completed by one statement that checks the slot's recorded grant and
     * the row's fence high-water mark. One write per batch instead of two. What differs: rows in
     * flight carry no claim (status and {@code leasebox status} show slot holders, not row claims,
     * and {@code claim_attempt_count} stays 0); a stale holder's completion is refused once a newer
     * grant of the slot is registered, which the newer holder does before it reads a row, so a stale
     * outcome cannot beat a newer holder's as it can with lean row claims. What it does weaken: while a
     * row is in flight the slot lease alone excludes other workers, so a coordinator that loses its data
     * (or a worker that keeps emitting past a lost lease it has not yet noticed) lets the slot's next
     * holder emit the same rows concurrently; and a table's lean partition workers cannot share it with
     * workers of another claim style (see {@link dev.leasebox.outbox.leased.ClaimMode}). A row is never
     * emitted under a grant whose fence is below the row's high-water mark. The default of
     * {@code leasebox worker --lease-granularity partition}.
     */
    LEAN
}
