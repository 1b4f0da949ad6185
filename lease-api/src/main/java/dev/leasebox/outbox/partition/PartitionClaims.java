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
     * grant of the slot is registered, which the newer holder does before it reads a row. The
     * default of {@code leasebox worker --lease-granularity partition}: unlike lean row claims, it
     * weakens no guarantee (see docs/architecture.md §10).
     */
    LEAN
}
