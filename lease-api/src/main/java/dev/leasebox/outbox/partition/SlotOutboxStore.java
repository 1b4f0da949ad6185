package dev.leasebox.outbox.partition;

import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.OutboxClaim;

import java.util.List;

/**
 * What a table-backed store offers for partition leases. Each method is one round trip.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@link #registerGrants} records a grant as its slot's newest only when its fence is strictly
 *       above the slot's fence high-water mark (an equal fence is refused, as for rows), raising the
 *       mark; it never lowers it.</li>
 *   <li>{@link #claimInSlots} claims only rows of slots whose recorded newest grant is one of the
 *       given grants (same slot, same fence), checked in the claiming statement itself and ordered
 *       against registrations: once a newer grant is registered, an older grant claims nothing
 *       more. Rows under an unexpired claim are never taken. Each claimed row gets the token
 *       {@code max(grant fence, row fence_high_water + 1)}, so tokens strictly grow per row.</li>
 *   <li>With {@code ordered}, a row is claimed only when no earlier row (lower id) with the same
 *       partition key is still non-terminal (anything but DELIVERED and DEAD_LETTERED); rows without
 *       a partition key are unordered.</li>
 * </ul>
 * Completion, renewal and reads are the row store's ({@link dev.leasebox.outbox.OutboxClaimStore}):
 * a claim made here is completed by token exactly as any other.
 */
public interface SlotOutboxStore {

    /** The table's number of slots, fixed by its schema. */
    int slotCount();

    /** The highest fence any slot grant ever recorded (0 when none). */
    long highestSlotFence();

    /** Records each grant as its slot's newest where its fence allows, in one statement. */
    SlotRegistration registerGrants(List<SlotGrant> grants);

    /** Claims up to {@code request.batchSize()} eligible rows of the given slots, oldest first, in one statement. */
    List<OutboxClaim> claimInSlots(ClaimSelection selection, ClaimRequest request, List<SlotGrant> grants, boolean ordered);
}
