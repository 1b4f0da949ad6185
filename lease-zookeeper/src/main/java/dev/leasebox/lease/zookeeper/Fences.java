package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManagerException;

/**
 * A lease's fence: the creating transaction's {@code czxid} shifted left by {@value #POSITION_BITS}
 * bits, plus the key's position in the multi that created it. Every node of one multi shares its
 * czxid; the position keeps fences distinct within a batch, and any later create (of any key) has a
 * greater czxid, so its fence is greater than every fence of this multi: fences strictly grow per key.
 * This holds while the leader epoch (the czxid's high 32 bits) stays below 2^{@value #EPOCH_BITS_LEFT}.
 */
final class Fences {

    static final int POSITION_BITS = 8;
    /** The most creates one multi may carry, so that positions fit. */
    static final int MAX_PER_MULTI = 1 << POSITION_BITS;
    static final int EPOCH_BITS_LEFT = 32 - POSITION_BITS - 1;

    private Fences() {
    }

    static long of(long czxid, int position) {
        if (czxid <= 0 || czxid >>> (63 - POSITION_BITS) != 0) {
            throw new LeaseManagerException("czxid 0x" + Long.toHexString(czxid) + " does not fit a fence (leader epoch "
                    + (czxid >>> 32) + " is beyond 2^" + EPOCH_BITS_LEFT + "); this ensemble cannot grant fenced leases");
        }
        if (position < 0 || position >= MAX_PER_MULTI) {
            throw new IllegalArgumentException("position " + position + " outside [0, " + MAX_PER_MULTI + ")");
        }
        return (czxid << POSITION_BITS) | position;
    }

    /** The czxid of the node a lease with this fence was granted on. */
    static long czxidOf(long fence) {
        return fence >>> POSITION_BITS;
    }
}
