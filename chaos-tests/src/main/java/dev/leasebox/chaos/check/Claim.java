package dev.leasebox.chaos.check;

import dev.leasebox.chaos.history.HistoryEvent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** One recorded claim of an entry, with what its history says it did and when it can have ended. */
final class Claim {
    final String owner;
    final long entry;
    final long fence;
    final long t;
    final long claimedAt;
    final int attempt;
    long expiresAt;
    private final long originalExpiresAt;
    boolean invoked;
    boolean mayHaveDelivered;
    boolean outcomeSeen;
    long endedAt = Long.MAX_VALUE; // completed (accepted or refused), lost or abandoned: common-clock millis
    String ending = "";
    long completedNonTerminalAt = Long.MAX_VALUE;
    long lostAt = Long.MAX_VALUE;
    /** Common-clock millis when the claim call began: no grant of this claim happened before. */
    final long askedAt;
    /**
     * Common-clock millis from which the lease this claim was granted under can be counted: the claim call's start,
     * or for a row granted under a lease its worker already held for a group of rows ({@code leaseSince}), the
     * request that granted or last renewed that lease, if earlier.
     */
    final long leaseStart;
    /**
     * The earliest, in real time (common clock), that this claim's lease can have ended: {@link #leaseStart} plus
     * the lease's length as granted ({@code expiresAt - claimedAt}, a difference on one clock, so whatever that
     * clock's offset), moved by each kept renewal to its invocation plus the length. Never a worker's clock.
     */
    long realExpiryLow;

    Claim(HistoryEvent e) {
        this.owner = e.owner();
        this.entry = e.entry();
        this.fence = e.fence();
        this.t = e.t();
        this.claimedAt = e.claimedAt();
        this.attempt = e.claimAttempt();
        this.expiresAt = e.expiresAt();
        this.originalExpiresAt = e.expiresAt();
        this.askedAt = e.askedAt() > 0 ? e.askedAt() : e.t();
        this.leaseStart = e.leaseSince() > 0 ? Math.min(askedAt, e.leaseSince()) : askedAt;
        this.realExpiryLow = e.claimedAt() != 0 && e.expiresAt() != 0 ? leaseStart + ttl() : Long.MIN_VALUE;
    }

    long ttl() {
        return originalExpiresAt - claimedAt;
    }

    /** Records how the claim ended, keeping the earliest ending. */
    void end(long at, String how) {
        if (at < endedAt) {
            endedAt = at;
            ending = how;
        }
    }

    /**
     * A row's claims in the database's order: its claim attempt count (incremented by the claiming write
     * itself); history times only approximate it, as each line is written after its write.
     */
    static List<Claim> inRowOrder(List<Claim> claims) {
        List<Claim> ordered = new ArrayList<>(claims);
        ordered.sort(Comparator.<Claim>comparingInt(c -> c.attempt).thenComparingLong(c -> c.t));
        return ordered;
    }
}
