package dev.leasebox.claim.partition;

import dev.leasebox.claim.ClaimMode;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

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
 * <p>With {@link ClaimMode#LEAN}, nothing is written before the emission: rows of held slots
 * are read, emitted under the slot grant's fence, and completed by a statement that checks the slot's
 * recorded grant (see {@link SlotOutboxStore}); renewing a lean claim is checking that its slot is still
 * held with the same fence (no round trip). The worker keeps its rows in flight out of its next reads, and
 * keeps their slots (see {@link SlotLeaseKeeper#setSlotsInUse(java.util.function.IntPredicate, Object)}: the
 * keeper's release decision and a claim's read exclude each other).
 *
 * <p>A lean token is the grant's fence itself, and <b>one grant hands a row out at most once</b>: every
 * emission of a row carries a token above all earlier ones (the architecture's invariant 2), with no counter
 * that a newer grant's fence would have to exceed. A row whose fence high-water mark is at or above the grant's
 * fence is not handed out under it (the grant already completed it once, a retry; or another writer marked it
 * higher), and a row handed out under a grant whose emission ended without a recorded completion (abandoned,
 * lost, refused, or its completion failed) stays out of reads under that grant. In both cases the slot is
 * granted again under a higher fence ({@link SlotLeaseKeeper#regrant}): it leaves the valid grants at once, and
 * is released and acquired again as soon as none of its rows is in flight. A suspended coordinator connection
 * pauses new claims but never shortens a row's exclusion: a renewal during the suspension neither extends nor
 * drops the row, which stays in flight until its emission ends. A row in flight whose claim deadline (as last
 * handed out by {@link #claim} or {@link #renewClaims}) passed more than a lease ttl ago is no longer in flight:
 * the drain gave up on it at that deadline and writes nothing for it, so it is read again, under the slot's
 * next grant, rather than held back forever.
 *
 * <p>With {@code ordered}, an entry is claimed (and so emitted) only after every earlier entry with
 * the same partition key is terminal: one key's entries are emitted one at a time, in id order, and
 * a failing head holds back only its own key.
 */
public final class PartitionedOutboxClaimStore extends ForwardingOutboxClaimStore implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PartitionedOutboxClaimStore.class);

    private final SlotOutboxStore slots;
    private final SlotLeaseKeeper keeper;
    private final boolean ordered;
    private final ClaimMode mode;
    private final Clock clock;
    /** Lean mode: the rows this worker is emitting, by id, with their slots and claim deadlines. */
    private final Map<Long, InFlight> inFlight = new ConcurrentHashMap<>();
    /** Lean mode: how long after its claim's deadline a row abandoned by the drain stays out of reads. */
    private final Duration abandonedAfter;

    /** A lean claim in flight: its slot, the fence it was handed out under, and the deadline its claim was last given. */
    private record InFlight(int slot, long fence, Instant deadline) {
    }
    /**
     * Lean mode: one read at a time per worker, so that two claim loops do not read the same rows
     * before either has marked them in flight (the database marks nothing in lean mode); the
     * putIfAbsent below is what makes a double claim impossible, this only keeps batches full.
     */
    private final Object leanReads = new Object();

    private PartitionedOutboxClaimStore(OutboxClaimStore rows, SlotOutboxStore slots, SlotLeaseKeeper keeper, boolean ordered,
                                        ClaimMode mode, Duration leaseTtl, Clock clock) {
        super(rows);
        this.abandonedAfter = leaseTtl;
        this.slots = slots;
        this.keeper = keeper;
        this.ordered = ordered;
        this.mode = mode;
        this.clock = clock;
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
     * @param mode         recorded (default) or lean claims
     */
    public static PartitionedOutboxClaimStore open(OutboxClaimStore rows, SlotOutboxStore slots, LeaseManager manager,
                                                   WorkerGroup group, String owner, Duration leaseTtl, Duration tickInterval,
                                                   boolean ordered, ClaimMode mode, Clock clock) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(mode, "mode");
        SlotLeaseKeeper keeper = new SlotLeaseKeeper(slots, manager, group, owner, leaseTtl, tickInterval,
                rows::highestFenceHighWater, clock);
        PartitionedOutboxClaimStore store = over(rows, slots, keeper, ordered, mode, leaseTtl, clock);
        if (mode == ClaimMode.LEAN) {
            log.warn("Lean partition claims through {}: rows in flight carry no claim, so only the slot lease excludes "
                    + "other workers; if the coordinator loses its data, rows in flight are emitted twice at once "
                    + "(recorded claims do not allow it; see ClaimMode)", manager.describe());
        }
        keeper.start();
        return store;
    }

    /** The store over a keeper that is not started yet (the caller ticks it); lean mode wires the keeper's in-use check. */
    static PartitionedOutboxClaimStore over(OutboxClaimStore rows, SlotOutboxStore slots, SlotLeaseKeeper keeper,
                                            boolean ordered, ClaimMode mode, Duration leaseTtl, Clock clock) {
        PartitionedOutboxClaimStore store = new PartitionedOutboxClaimStore(rows, slots, keeper, ordered, mode, leaseTtl, clock);
        if (mode == ClaimMode.LEAN) {
            keeper.setSlotsInUse(store::hasRowsInFlight, store.leanReads);
        }
        return store;
    }

    /** The default tick: a third of the lease ttl. */
    public static Duration defaultTickInterval(Duration leaseTtl) {
        return leaseTtl.dividedBy(3);
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        if (mode == ClaimMode.RECORDED) {
            List<SlotGrant> grants = keeper.validGrants();
            return grants.isEmpty() ? List.of() : slots.claimInSlots(selection, request, grants, ordered);
        }
        List<OutboxClaim> claims = new ArrayList<>();
        // From the grants to the rows marked in flight, under the monitor the keeper decides releases under:
        // no slot is released between being chosen here and its rows being in flight.
        synchronized (leanReads) {
            Instant now = clock.instant();
            inFlight.forEach((id, f) -> {
                if (abandoned(f, now)) {
                    retire(id, f); // before the grants are read: the abandoned row's slot is no longer offered
                }
            });
            List<SlotGrant> grants = keeper.validGrants();
            if (grants.isEmpty()) {
                return List.of();
            }
            Map<Integer, SlotGrant> bySlot = new java.util.HashMap<>();
            grants.forEach(g -> bySlot.put(g.slot(), g));
            for (SlotOutboxStore.SlottedEntry e : slots.selectInSlots(selection, request.batchSize(), grants, ordered,
                    List.copyOf(inFlight.keySet()))) {
                SlotGrant g = bySlot.get(e.slot());
                if (g == null) {
                    continue; // not one of these slots
                }
                if (e.entry().fenceHighWater() > g.fence()) {
                    // marked by a newer fence of another writer: no completion under this grant could land
                    keeper.regrant(g, e.entry().fenceHighWater());
                    continue;
                }
                if (e.entry().fenceHighWater() == g.fence()) {
                    // completed once under this grant (a retry): its next emission needs a higher token
                    keeper.regrant(g.slot(), g.fence());
                    continue;
                }
                Instant deadline = g.lease().localDeadline();
                if (inFlight.putIfAbsent(e.entry().id(), new InFlight(e.slot(), g.fence(), deadline)) != null) {
                    continue; // already in flight in another claim loop
                }
                claims.add(new OutboxClaim(e.entry(), request.owner(), g.fence(), now, deadline,
                        e.entry().claimAttemptCount()));
            }
        }
        return claims;
    }

    /**
     * Ends a row's time in flight when its emission ended without a recorded completion: the slot is granted
     * again first, so that no read under the row's grant can find it between the two steps (the monitor
     * orders this against {@link #claim}'s reads). The row's next emission then carries a higher fence.
     */
    private void retire(long id, InFlight f) {
        synchronized (leanReads) {
            keeper.regrant(f.slot(), f.fence());
            inFlight.remove(id, f);
        }
    }

    /** Whether the drain has certainly given up on this row: its claim's deadline is a lease ttl past. */
    private boolean abandoned(InFlight f, Instant now) {
        return !f.deadline().plus(abandonedAfter).isAfter(now);
    }

    /** Lean mode: whether {@code slot} has rows in flight (the keeper keeps such a slot until they are done). */
    private boolean hasRowsInFlight(int slot) {
        Instant now = clock.instant();
        return inFlight.values().stream().anyMatch(f -> f.slot() == slot && !abandoned(f, now));
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return completeAll(List.of(new ClaimCompletion(claim, completion))).get(0);
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        if (mode == ClaimMode.RECORDED) {
            return super.completeAll(completions);
        }
        List<SlotOutboxStore.SlotCompletion> known = new ArrayList<>();
        CompletionOutcome[] outcomes = new CompletionOutcome[completions.size()];
        List<Integer> knownAt = new ArrayList<>();
        for (int i = 0; i < completions.size(); i++) {
            ClaimCompletion c = completions.get(i);
            InFlight f = inFlight.get(c.claim().entryId());
            if (f == null) {
                // not a lean claim of this worker (or already completed, or abandoned): nothing to write under
                outcomes[i] = new CompletionOutcome.StaleToken(c.claim().token(), c.claim().entry());
            } else {
                known.add(new SlotOutboxStore.SlotCompletion(c.claim(), f.slot(), c.completion()));
                knownAt.add(i);
            }
        }
        List<CompletionOutcome> written;
        try {
            written = slots.completeInSlots(known);
        } catch (RuntimeException e) {
            known.forEach(sc -> retireClaim(sc.claim())); // written or not: unknown, so never again under these grants
            throw e;
        }
        for (int k = 0; k < written.size(); k++) {
            outcomes[knownAt.get(k)] = written.get(k);
            SlotOutboxStore.SlotCompletion sc = known.get(k);
            if (written.get(k) instanceof CompletionOutcome.Reclaimed r) {
                keeper.validGrant(sc.slot()).filter(g -> g.fence() == sc.claim().token())
                        .ifPresent(g -> keeper.regrant(g, r.current().fenceHighWater()));
            }
            if (written.get(k).isCompleted()) {
                inFlight.remove(sc.claim().entryId()); // the row's mark is now this fence: no read hands it out under it
            } else {
                retireClaim(sc.claim());
            }
        }
        return List.of(outcomes);
    }

    private void retireClaim(OutboxClaim claim) {
        InFlight f = inFlight.get(claim.entryId());
        if (f != null) {
            retire(claim.entryId(), f);
        }
    }

    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        if (mode == ClaimMode.RECORDED) {
            return super.renewClaims(claims, leaseDuration);
        }
        List<OutboxClaim> held = new ArrayList<>();
        for (OutboxClaim c : claims) {
            InFlight f = inFlight.get(c.entryId());
            if (f == null || f.fence() != c.token()) {
                continue; // no longer this worker's emission (completed, abandoned or lost before)
            }
            Optional<SlotGrant> g = keeper.heldGrant(f.slot()).filter(h -> h.fence() == f.fence());
            if (g.isEmpty()) {
                retire(c.entryId(), f); // lost: the drain will not finalize it
            } else if (keeper.suspended()) {
                // neither confirmed nor lost: the claim keeps its deadline, the row its exclusion
                held.add(c);
            } else {
                Instant deadline = g.get().lease().localDeadline();
                inFlight.replace(c.entryId(), f, new InFlight(f.slot(), f.fence(), deadline));
                held.add(c.withExpiresAt(deadline));
            }
        }
        return held;
    }

    /** Lean mode: how many rows this worker is emitting now. */
    public int inFlightCount() {
        return inFlight.size();
    }

    public ClaimMode mode() {
        return mode;
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
