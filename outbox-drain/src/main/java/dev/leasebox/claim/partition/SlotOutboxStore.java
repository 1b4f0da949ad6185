package dev.leasebox.claim.partition;

import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.util.Collection;
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
 *   <li>Lean claims ({@link #selectInSlots}, {@link #completeInSlots}) write nothing before the
 *       emission: the slot lease is the claim. A lean completion is written only while its grant is
 *       the slot's newest recorded one (checked in the completing statement and ordered against
 *       registrations, as for claims), the row's fence high-water mark is below the grant's
 *       fence (one grant completes a row at most once), the row is claim-completable and carries no unexpired recorded claim; it raises the
 *       mark to the fence.</li>
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

    /**
     * Lean claims: reads up to {@code limit} eligible rows of the given slots, oldest first, not under an
     * unexpired recorded claim and not in {@code inFlight}, in one statement; writes nothing.
     */
    List<SlottedEntry> selectInSlots(ClaimSelection selection, int limit, List<SlotGrant> grants, boolean ordered,
                                     Collection<Long> inFlight);

    /** A row read by {@link #selectInSlots}, with its slot. */
    record SlottedEntry(int slot, OutboxEntry entry) {
    }

    /** Lean claims: completes each row under its slot's grant, in one statement; outcomes in the order given. */
    List<CompletionOutcome> completeInSlots(List<SlotCompletion> completions);

    /**
     * One lean completion: the claim (whose token is the grant's fence), the row's slot and what to write.
     */
    record SlotCompletion(OutboxClaim claim, int slot, Completion completion) {
    }
}
