package dev.leasebox.outbox.partition;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The claim store of lease granularity {@code partition}: claims rows only in the slots this worker
 * holds, in one database statement per batch, with tokens derived from the slot leases' fences (see
 * {@link SlotOutboxStore}). The coordinator is not on the claim path: slot leases are acquired,
 * renewed and released by a {@link SlotLeaseKeeper} in the background, a few round trips per tick.
 *
 * <p>Completion, renewal of claims (the row's {@code claim_expires_at}, token-checked) and reads are
 * the row store's, unchanged: a stale holder's completion is refused by token exactly as in row
 * mode. A worker that holds no slot yet (just started, or rebalancing) claims nothing.
 *
 * <p>With {@code ordered}, an entry is claimed (and so emitted) only after every earlier entry with
 * the same partition key is terminal: one key's entries are emitted one at a time, in id order, and
 * a failing head holds back only its own key.
 */
public final class PartitionedOutboxClaimStore extends ForwardingOutboxClaimStore implements AutoCloseable {

    private final SlotOutboxStore slots;
    private final SlotLeaseKeeper keeper;
    private final boolean ordered;

    private PartitionedOutboxClaimStore(OutboxClaimStore rows, SlotOutboxStore slots, SlotLeaseKeeper keeper, boolean ordered) {
        super(rows);
        this.slots = slots;
        this.keeper = keeper;
        this.ordered = ordered;
    }

    /**
     * Opens the store and starts keeping {@code owner}'s share of slots: the first rebalance runs
     * before this returns (so a lone worker starts with every slot).
     *
     * @param rows         the row store: completes, renews and reads claims by token (the JDBC store)
     * @param slots        the same table's slot operations
     * @param manager      leases the slots (any backend)
     * @param group        membership, to compute the fair share
     * @param owner        this worker; the drain's owner, so claims and slot grants name the same worker
     * @param leaseTtl     the slot leases' ttl (and the membership heartbeat's)
     * @param tickInterval how often to rebalance and renew; at most half of {@code leaseTtl}
     * @param ordered      per-key ordering
     */
    public static PartitionedOutboxClaimStore open(OutboxClaimStore rows, SlotOutboxStore slots, LeaseManager manager,
                                                   WorkerGroup group, String owner, Duration leaseTtl, Duration tickInterval,
                                                   boolean ordered, Clock clock) {
        Objects.requireNonNull(rows, "rows");
        SlotLeaseKeeper keeper = new SlotLeaseKeeper(slots, manager, group, owner, leaseTtl, tickInterval, clock);
        keeper.start();
        return new PartitionedOutboxClaimStore(rows, slots, keeper, ordered);
    }

    /** The default tick: a third of the lease ttl. */
    public static Duration defaultTickInterval(Duration leaseTtl) {
        return leaseTtl.dividedBy(3);
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        List<SlotGrant> grants = keeper.validGrants();
        if (grants.isEmpty()) {
            return List.of();
        }
        return slots.claimInSlots(selection, request, grants, ordered);
    }

    /** The background keeper: held slots, members, a tick on demand. */
    public SlotLeaseKeeper keeper() {
        return keeper;
    }

    public boolean ordered() {
        return ordered;
    }

    /** Stops rebalancing, releases the slots and leaves the group. Close the drain first. */
    @Override
    public void close() {
        keeper.close();
    }
}
