package dev.leasebox.outbox.leased;

import dev.leasebox.lease.PeerRank;

/**
 * The rows a worker prefers when it chooses claim candidates: those whose {@code id mod count} is
 * {@code index}. Workers that know their rank among {@code count} live peers
 * ({@link dev.leasebox.lease.LeaseManager#peerRank()}) take disjoint stripes, so their first choices
 * do not meet another worker's leases; a ZooKeeper multi-op, which is all-or-nothing, then commits in
 * one round instead of three (docs/benchmarks.md, session 5).
 *
 * <p>A preference, never a restriction: a worker still takes other stripes' rows when its own stripe
 * is short in the candidate window, which is always the oldest eligible rows, so a stripe whose
 * worker died or falls behind is drained by the others once its rows fill that window. Safety does
 * not depend on it: every key is still leased from the coordinator.
 *
 * @param index this worker's stripe, in {@code 0..count-1}
 * @param count the number of stripes; 1 ({@link #ALL}) means no preference
 */
public record CandidateStripe(int index, int count) {

    /** No preference: every row is in the one stripe. */
    public static final CandidateStripe ALL = new CandidateStripe(0, 1);

    public CandidateStripe {
        if (count < 1) {
            throw new IllegalArgumentException("stripe count must be at least 1, was " + count);
        }
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("stripe index must be in 0.." + (count - 1) + ", was " + index);
        }
    }

    /** The stripe of a manager of that rank: one stripe per live peer. */
    public static CandidateStripe of(PeerRank rank) {
        return new CandidateStripe(rank.rank(), rank.peers());
    }

    /** Whether this is a real preference (more than one stripe). */
    public boolean isStriped() {
        return count > 1;
    }

    /** Whether row {@code id} is in this stripe. */
    public boolean contains(long id) {
        return Math.floorMod(id, count) == index;
    }
}
