package dev.leasebox.claim;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.outbox.CompletionOutcome;

import java.util.Locale;

/**
 * Which leases {@link LeasedOutboxClaimStore} releases once their completions were written.
 *
 * <p>Releasing never matters for safety: it comes after the completion stands on the row, and a
 * completion is checked by the row, not by the lease. It matters for liveness and cost:
 * <ul>
 *   <li>After a <b>terminal</b> completion (DELIVERED, DEAD_LETTERED) nobody needs the key again: the
 *       row is never a candidate any more, and a worker whose candidate read still saw it eligible is
 *       refused the key until the ttl (and would drop the row after the grant anyway). Letting the
 *       lease lapse at its ttl saves a coordinator round trip per batch.</li>
 *   <li>After a <b>non-terminal</b> completion (a release unemitted, a retry or a deferral) the row is
 *       eligible again, now or at its next attempt time; an unreleased lease would hold every worker
 *       off it until the ttl, which turns a retry due in a second into one due after the lease (30 s by
 *       default). So those are always released.</li>
 *   <li>A <b>refused</b> completion's lease is released too (if still held with that fence, which the
 *       manager checks): it is no use to anyone.</li>
 * </ul>
 * {@link #NON_TERMINAL} needs a manager whose unreleased leases cost nothing after their ttl
 * ({@link dev.leasebox.lease.LapsingLeases}: Redis, the in-memory manager).
 * ZooKeeper keeps an unreleased lease's EPHEMERAL node for the life of the session, so it is refused
 * there; Hazelcast's manager unlocks at the deadline itself, which moves the Raft work rather than
 * saving it, so it is refused there too.
 */
public enum ReleaseAfterCompletion {
    /** Release every lease after its completion (default): one coordinator round trip per batch. */
    ALWAYS,
    /** Let the leases of terminal completions lapse at their ttl; release the rest. */
    NON_TERMINAL;

    /** {@code always} or {@code non-terminal}, any case; anything else fails with a message naming both. */
    public static ReleaseAfterCompletion parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("Invalid release-after-completion '" + text
                    + "': choose always or non-terminal");
        }
    }

    /** Whether the lease of a completion with this outcome is released under this policy. */
    public boolean releases(CompletionOutcome outcome) {
        if (this == ALWAYS || !(outcome instanceof CompletionOutcome.Completed done)) {
            return true;
        }
        return !done.entry().status().isTerminal();
    }
}
