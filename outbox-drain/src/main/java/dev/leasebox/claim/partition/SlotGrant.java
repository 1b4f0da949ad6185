package dev.leasebox.claim.partition;

import dev.leasebox.lease.Lease;

import java.util.Objects;

/**
 * A slot held under a lease. The lease's fence is the grant's fence: rows claimed under this grant
 * (recorded claims) get the token {@code max(fence, row's fence_high_water + 1)}, so tokens strictly grow
 * per row even when one grant claims a row twice (a retry), and every token of a newer grant of the slot
 * is at least its larger fence. Lean claims carry exactly the fence, and a grant hands each row out at
 * most once (see {@link PartitionedOutboxClaimStore}).
 *
 * @param slot  the slot, in {@code 0..slotCount-1}
 * @param lease the slot's lease, key {@link #leaseKey(int)}
 */
public record SlotGrant(int slot, Lease lease) {

    public SlotGrant {
        Objects.requireNonNull(lease, "lease");
        if (slot < 0) {
            throw new IllegalArgumentException("slot must not be negative, was " + slot);
        }
        if (!lease.key().equals(leaseKey(slot))) {
            throw new IllegalArgumentException("lease " + lease.key() + " is not the lease of slot " + slot);
        }
    }

    /** The grant's fence. */
    public long fence() {
        return lease.fence();
    }

    /** The lease key of a slot: {@code slot-<n>}. */
    public static String leaseKey(int slot) {
        return "slot-" + slot;
    }

    /** The slot a lease key names, or -1 when it is not a slot key. */
    public static int slotOf(String leaseKey) {
        if (!leaseKey.startsWith("slot-")) {
            return -1;
        }
        try {
            return Integer.parseInt(leaseKey.substring(5));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
