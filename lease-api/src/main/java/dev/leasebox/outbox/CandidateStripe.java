package dev.leasebox.outbox;

import dev.leasebox.lease.PeerRank;

/**
 * The rows a worker prefers when it chooses claim candidates: those whose block
 * ({@code id / block}, rounded down) is {@code index} mod {@code count}; with the usual block of one
 * row, those whose {@code id mod count} is {@code index}. Workers that know their rank among {@code count} live peers
 * ({@link dev.leasebox.lease.PeerRanking}) take disjoint stripes, so their first choices
 * do not meet another worker's leases; a ZooKeeper multi-op, which is all-or-nothing, then commits in
 * one round instead of three (docs/decisions/0023-candidate-stripes.md).
 *
 * <p>A preference, never a restriction: a worker still takes other stripes' rows when its own stripe
 * is short in the candidate window, which is always the oldest eligible rows, so a stripe whose
 * worker died or falls behind is drained by the others once its rows fill that window. Safety does
 * not depend on it: every key is still leased from the coordinator.
 *
 * <p>Blocks: a manager that grants a block of consecutive rows under one coordinator lock
 * (the drain's grouped leases) wants a worker's stripe to hold whole blocks,
 * so that its batch of consecutive candidates costs one lock per block, and another worker's rows
 * never share its locks.
 *
 * @param index this worker's stripe, in {@code 0..count-1}
 * @param count the number of stripes; 1 ({@link #ALL}) means no preference
 * @param block the consecutive rows a stripe takes at a time, at least 1
 */
public record CandidateStripe(int index, int count, int block) {

    /** No preference: every row is in the one stripe. */
    public static final CandidateStripe ALL = new CandidateStripe(0, 1);

    public CandidateStripe {
        if (count < 1) {
            throw new IllegalArgumentException("stripe count must be at least 1, was " + count);
        }
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("stripe index must be in 0.." + (count - 1) + ", was " + index);
        }
        if (block < 1) {
            throw new IllegalArgumentException("stripe block must be at least 1 row, was " + block);
        }
    }

    /** Stripe {@code index} of {@code count}, a row at a time. */
    public CandidateStripe(int index, int count) {
        this(index, count, 1);
    }

    /** The stripe of a manager of that rank: one stripe per live peer, a row at a time. */
    public static CandidateStripe of(PeerRank rank) {
        return of(rank, 1);
    }

    /** The stripe of a manager of that rank, taking {@code block} consecutive rows at a time. */
    public static CandidateStripe of(PeerRank rank, int block) {
        return new CandidateStripe(rank.rank(), rank.peers(), block);
    }

    /** Whether this is a real preference (more than one stripe). */
    public boolean isStriped() {
        return count > 1;
    }

    /** Whether row {@code id} is in this stripe. */
    public boolean contains(long id) {
        return Math.floorMod(Math.floorDiv(id, (long) block), (long) count) == index;
    }
}
