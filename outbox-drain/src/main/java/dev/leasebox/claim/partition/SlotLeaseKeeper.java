package dev.leasebox.claim.partition;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Keeps one worker's fair share of a table's slots leased: every tick it heartbeats the
 * {@link WorkerGroup}, computes its share ({@link SlotAssignment}), releases the slots that are no
 * longer its share, renews the rest, acquires the missing ones and registers the new grants with the
 * table ({@link SlotOutboxStore#registerGrants}). Each step is one round trip, whatever the number of
 * slots; a tick costs at most five, every {@code tickInterval} (default a third of the lease ttl), and
 * none of them is on the claim path.
 *
 * <p>A grant the table refuses (its fence is not above the slot's recorded high-water mark: the
 * coordinator's counter went back, e.g. Redis restarted empty) is released at once; the manager's fence
 * floor is raised above the mark and the slot is acquired again on the next tick.
 *
 * <p>Rows carry fences of their own ({@code fence_high_water}), written by whatever claimed them before:
 * row-mode claims of another fence sequence, another namespace or coordinator, recorded partition claims.
 * A slot grant whose fence is not above a row's mark can never complete that row, so the keeper raises the
 * manager's floor at start above every slot's and every row's mark, and a claim path that meets a row
 * marked above its grant asks for the slot to be granted again ({@link #regrant}): the slot leaves
 * {@link #validGrants} at once, and on the next tick, once none of its rows is in flight, it is released,
 * the floor raised above the row's mark, and the slot acquired again under a higher fence. Lean claims ask
 * the same, with no mark, for a slot whose grant has spent its fence on a row ({@link #regrant(int, long)});
 * a re-grant request runs a tick at once rather than waiting for the next one. Lost leases
 * (reported by the manager or absent from a renewal) leave the held set at once; while the manager
 * reports its connection suspended, {@link #validGrants} is empty.
 */
public final class SlotLeaseKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SlotLeaseKeeper.class);

    private final SlotOutboxStore store;
    private final LeaseManager manager;
    private final WorkerGroup group;
    private final String owner;
    private final Duration leaseTtl;
    private final Duration tickInterval;
    private final Clock clock;
    private final int slotCount;
    private final Map<Integer, SlotGrant> held = new ConcurrentHashMap<>();
    private final Object tickLock = new Object();
    private volatile boolean suspended;
    /** Slots held but no longer this worker's share, kept only until their rows in flight are done. */
    private final Set<Integer> draining = ConcurrentHashMap.newKeySet();
    /** Slots to grant again under a fence above the given row mark (see {@link #regrant}). */
    private final Map<Integer, Long> regrants = new ConcurrentHashMap<>();
    private final java.util.function.LongSupplier highestRowFence;
    private volatile java.util.function.IntPredicate inUse = slot -> false;
    private volatile Object claimGate = new Object();
    private volatile List<String> members = List.of();
    private volatile boolean closed;
    private volatile ScheduledExecutorService ticker;
    /** Whether a tick asked for by a re-grant is queued and not started yet. */
    private final java.util.concurrent.atomic.AtomicBoolean tickQueued = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param highestRowFence reads the outbox's highest row fence ({@code fence_high_water}); the floor is
     *                        raised above it at start
     */
    public SlotLeaseKeeper(SlotOutboxStore store, LeaseManager manager, WorkerGroup group, String owner,
                           Duration leaseTtl, Duration tickInterval, java.util.function.LongSupplier highestRowFence,
                           Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.highestRowFence = Objects.requireNonNull(highestRowFence, "highestRowFence");
        this.manager = Objects.requireNonNull(manager, "manager");
        this.group = Objects.requireNonNull(group, "group");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl");
        this.tickInterval = Objects.requireNonNull(tickInterval, "tickInterval");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (tickInterval.compareTo(leaseTtl.dividedBy(2)) > 0 || tickInterval.isZero() || tickInterval.isNegative()) {
            throw new IllegalArgumentException("the slot tick interval must be positive and at most half the lease ttl ("
                    + leaseTtl + "), was " + tickInterval + ": slot leases are renewed on the tick");
        }
        this.slotCount = store.slotCount();
        manager.addLeaseLossListener(new LeaseLossListener() {
            @Override
            public void leasesLost(LeaseLoss loss) {
                dropLost(loss.leases(), loss.cause() + ": " + loss.detail());
            }

            @Override
            public void connectionSuspended(String detail) {
                suspended = true;
                log.warn("Worker {}: {} is suspended ({}); claiming nothing in its {} slots until it is restored",
                        SlotLeaseKeeper.this.owner, manager.describe(), detail, held.size());
            }

            @Override
            public void connectionRestored(String detail) {
                suspended = false;
            }
        });
    }

    /**
     * Tells the keeper which slots have rows in flight: a slot that stops being this worker's share
     * is kept (renewed, but no longer offered for new claims) until it has none, then released. Lean
     * claims need this: their rows carry no claim, so a slot released mid-emission would let its new
     * holder emit them again without any lease having expired.
     */
    public void setSlotsInUse(java.util.function.IntPredicate slotsInUse) {
        this.inUse = Objects.requireNonNull(slotsInUse, "slotsInUse");
    }

    /**
     * As {@link #setSlotsInUse(java.util.function.IntPredicate)}, and {@code claimGate} is the monitor the
     * claim path holds from {@link #validGrants} until the rows it read are in use: the keeper decides which
     * slots to release, and drops them from its held set, while holding it. Otherwise a slot could be found
     * unused and released between a claim's {@code validGrants()} and its rows being marked in flight, and
     * the slot's next holder could read and emit those rows while this worker emits them.
     */
    public void setSlotsInUse(java.util.function.IntPredicate slotsInUse, Object claimGate) {
        this.claimGate = Objects.requireNonNull(claimGate, "claimGate");
        this.inUse = Objects.requireNonNull(slotsInUse, "slotsInUse");
    }

    /**
     * Raises the fence floor above every recorded slot grant and every row's fence high-water mark, runs the
     * first tick, then ticks in the background.
     */
    public synchronized void start() {
        if (ticker != null) {
            throw new IllegalStateException("already started");
        }
        long slotFloor = store.highestSlotFence();
        long rowFloor = highestRowFence.getAsLong();
        long floor = Math.max(slotFloor, rowFloor);
        if (floor > 0 && manager.raiseFenceFloor(floor)) {
            log.debug("Raised the fence floor of {} to {} (the highest recorded slot grant: {}, row fence: {})",
                    manager.describe(), floor, slotFloor, rowFloor);
        }
        tick();
        ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "leasebox-slots-" + owner);
            t.setDaemon(true);
            return t;
        });
        long millis = tickInterval.toMillis();
        ticker.scheduleWithFixedDelay(this::tickQuietly, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** The slots held now under locally valid leases; empty while the coordinator connection is suspended. */
    public List<SlotGrant> validGrants() {
        if (suspended || closed) {
            return List.of();
        }
        Instant now = clock.instant();
        List<SlotGrant> valid = new ArrayList<>();
        for (SlotGrant g : held.values()) {
            if (g.lease().isLocallyValid(now) && !draining.contains(g.slot()) && !regrants.containsKey(g.slot())) {
                valid.add(g);
            }
        }
        return valid;
    }

    /**
     * The grant of {@code slot} if it is held now under a locally valid lease, whether or not the connection is
     * suspended: a suspension does not end a grant, it only leaves it unconfirmed.
     */
    public java.util.Optional<SlotGrant> heldGrant(int slot) {
        SlotGrant g = held.get(slot);
        if (g == null || closed || !g.lease().isLocallyValid(clock.instant())) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(g);
    }

    /** Whether the manager reports its connection suspended now (grants are held but cannot be confirmed). */
    public boolean suspended() {
        return suspended;
    }

    /** The grant of {@code slot} if it is held now under a locally valid lease (and not suspended). */
    public java.util.Optional<SlotGrant> validGrant(int slot) {
        SlotGrant g = held.get(slot);
        if (g == null || suspended || closed || !g.lease().isLocallyValid(clock.instant())) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(g);
    }

    /**
     * Asks for {@code slot} to be granted again under a fence above {@code rowHighWater}: a row of the slot
     * carries a mark at or above the fence of {@code grant}, so no completion under that grant can ever be
     * written for it. The slot leaves {@link #validGrants} at once (its rows in flight stay renewable); the
     * next tick releases it once none of its rows is in flight, raises the floor and acquires it again.
     * Does nothing when {@code grant} is no longer the slot's held grant.
     */
    public void regrant(SlotGrant grant, long rowHighWater) {
        SlotGrant current = held.get(grant.slot());
        if (current != null && current.fence() == grant.fence() && rowHighWater >= grant.fence()) {
            regrants.merge(grant.slot(), rowHighWater, Math::max);
            tickSoon();
        }
    }

    /**
     * Asks for {@code slot} to be granted again because its grant under {@code fence} has spent that fence on a
     * row (handed it out once: a lean claim never hands a row out twice under one fence). Any later grant has a
     * higher fence, so no floor is raised. The slot leaves {@link #validGrants} at once; it is released once none
     * of its rows is in flight and acquired again. Does nothing when {@code fence} is no longer the slot's grant.
     */
    public void regrant(int slot, long fence) {
        SlotGrant current = held.get(slot);
        if (current != null && current.fence() == fence) {
            regrants.merge(slot, 0L, Math::max);
            tickSoon();
        }
    }

    /** Queues one tick on the ticker (at most one waiting), so a re-grant does not wait for the next interval. */
    private void tickSoon() {
        ScheduledExecutorService t = ticker;
        if (t != null && tickQueued.compareAndSet(false, true)) {
            try {
                t.execute(() -> {
                    tickQueued.set(false);
                    tickQuietly();
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                tickQueued.set(false); // closing: nothing more to grant
            }
        }
    }

    /** The slots held now, valid or not (for reports and tests). */
    public Set<Integer> heldSlots() {
        return new TreeSet<>(held.keySet());
    }

    /** The live members seen at the last heartbeat. */
    public List<String> members() {
        return members;
    }

    public int slotCount() {
        return slotCount;
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            log.warn("Worker {}: slot rebalance failed, will retry in {}: {}", owner, tickInterval, e.getMessage());
        }
    }

    /** One rebalance step (heartbeat, release, renew, acquire, register). Called by the ticker; public for tests. */
    public void tick() {
        synchronized (tickLock) {
            if (closed) {
                return;
            }
            List<String> seen = group.heartbeat(owner, leaseTtl);
            members = seen;
            Set<Integer> target = SlotAssignment.slotsOf(owner, seen, slotCount);
            int before = held.size();

            HeldLeases sorted = sortHeld(target);
            if (!sorted.surplus().isEmpty()) {
                manager.release(sorted.surplus());
            }
            if (!sorted.keep().isEmpty()) {
                renewKept(sorted.keep());
            }
            List<String> wanted = slotsToAcquire(target);
            int refused = wanted.isEmpty() ? 0 : acquire(wanted);
            draining.retainAll(held.keySet());
            regrants.keySet().retainAll(held.keySet());
            if (held.size() != before || refused > 0) {
                log.info("Worker {} holds {} of {} slots (its share: {}, live workers: {})", owner, held.size(), slotCount,
                        target.size(), seen.size());
            }
        }
    }

    /** The held slots' leases split into those to release now and those to renew. */
    private record HeldLeases(List<Lease> surplus, List<Lease> keep) {
    }

    /** Keeps target and busy slots (draining busy ones outside the target); the rest leave {@code held}. */
    private HeldLeases sortHeld(Set<Integer> target) {
        List<Lease> surplus = new ArrayList<>();
        List<Lease> keep = new ArrayList<>();
        synchronized (claimGate) { // no claim reads between the in-use check and the surplus leaving `held`
            java.util.function.IntPredicate busy = inUse;
            for (SlotGrant g : held.values()) {
                if (regrants.containsKey(g.slot()) && !busy.test(g.slot())) {
                    draining.remove(g.slot());
                    surplus.add(g.lease()); // granted again later in this tick when it is still this worker's share
                } else if (target.contains(g.slot())) {
                    draining.remove(g.slot());
                    keep.add(g.lease());
                } else if (busy.test(g.slot())) {
                    draining.add(g.slot()); // no new claims here; released once its rows in flight are done
                    keep.add(g.lease());
                } else {
                    draining.remove(g.slot());
                    surplus.add(g.lease());
                }
            }
            surplus.forEach(l -> held.remove(SlotGrant.slotOf(l.key())));
        }
        return new HeldLeases(surplus, keep);
    }

    /** Renews {@code keep}; a slot whose lease was not renewed under the same fence is no longer held. */
    private void renewKept(List<Lease> keep) {
        List<Lease> renewed = manager.renew(keep);
        Map<String, Lease> byKey = renewed.stream().collect(Collectors.toMap(Lease::key, Function.identity(), (a, b) -> a));
        for (Lease l : keep) {
            int slot = SlotGrant.slotOf(l.key());
            Lease r = byKey.get(l.key());
            if (r != null && r.fence() == l.fence()) {
                held.computeIfPresent(slot, (s, g) -> g.fence() == r.fence() ? new SlotGrant(s, r) : g);
            } else {
                held.remove(slot);
            }
        }
    }

    /** The target's slots not held, as lease keys; raises the fence floor first for those marked for a re-grant. */
    private List<String> slotsToAcquire(Set<Integer> target) {
        List<String> wanted = new ArrayList<>();
        long regrantFloor = 0;
        for (int slot : target) {
            if (!held.containsKey(slot)) {
                wanted.add(SlotGrant.leaseKey(slot));
                Long mark = regrants.remove(slot); // 0: a spent fence, which any new grant exceeds anyway
                regrantFloor = Math.max(regrantFloor, mark == null ? 0 : mark);
            }
        }
        if (regrantFloor > 0) {
            boolean raised = manager.raiseFenceFloor(regrantFloor);
            log.warn("Worker {}: rows of its slots carry fences up to {} from another writer (row-mode claims, another "
                    + "namespace or coordinator); {} and granting those slots again", owner, regrantFloor,
                    raised ? "raised the fence floor above them" : manager.describe() + " cannot raise its fence floor, "
                            + "so those rows wait until its fences pass the mark");
        }
        return wanted;
    }

    /** Acquires and registers {@code wanted}, releasing grants the store refused; returns how many it refused. */
    private int acquire(List<String> wanted) {
        List<Lease> granted = manager.acquire(new LeaseRequest(wanted, owner, leaseTtl));
        if (granted.isEmpty()) {
            return 0;
        }
        List<SlotGrant> grants = granted.stream().map(l -> new SlotGrant(SlotGrant.slotOf(l.key()), l)).toList();
        SlotRegistration registration;
        try {
            registration = store.registerGrants(grants);
        } catch (RuntimeException e) {
            manager.release(granted);
            throw e;
        }
        registration.accepted().forEach(g -> held.put(g.slot(), g));
        int refused = registration.refusedHighWater().size();
        if (refused == 0) {
            return 0;
        }
        List<Lease> refusedLeases = grants.stream()
                .filter(g -> registration.refusedHighWater().containsKey(g.slot())).map(SlotGrant::lease).toList();
        manager.release(refusedLeases);
        long highWater = registration.refusedHighWater().values().stream().mapToLong(Long::longValue).max().orElse(0);
        boolean raised = manager.raiseFenceFloor(highWater);
        log.warn("Worker {}: {} slot grant(s) from {} carried fences not above their slots' recorded high-water "
                + "mark (up to {}): {}; acquiring them again on the next tick", owner, refused, manager.describe(),
                highWater, raised ? "raised the fence floor above it"
                        : "this backend cannot raise its fence floor, so these slots stay unclaimable until "
                        + "the coordinator's fences pass the mark (see docs/guide/partition-leases.md)");
        return refused;
    }

    private void dropLost(Collection<Lease> lost, String why) {
        int dropped = 0;
        for (Lease l : lost) {
            int slot = SlotGrant.slotOf(l.key());
            if (slot >= 0 && held.computeIfPresent(slot, (s, g) -> g.fence() == l.fence() ? null : g) == null) {
                dropped++;
            }
        }
        if (dropped > 0) {
            log.warn("Worker {} lost {} slot lease(s) ({}); the slots will be acquired again when they are its share", owner,
                    dropped, why);
        }
    }

    /** Stops ticking, releases every held slot and leaves the group, so the others rebalance at once. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = ticker;
            ticker = null;
        }
        if (t != null) {
            t.shutdownNow();
        }
        synchronized (tickLock) {
            if (closed) {
                return;
            }
            closed = true;
            List<Lease> all = held.values().stream().map(SlotGrant::lease).toList();
            held.clear();
            try {
                if (!all.isEmpty()) {
                    manager.release(all);
                }
            } catch (RuntimeException e) {
                log.warn("Worker {}: releasing {} slot(s) on close failed; they expire within {}: {}", owner, all.size(),
                        leaseTtl, e.getMessage());
            }
            try {
                group.leave(owner);
            } catch (RuntimeException e) {
                log.warn("Worker {}: leaving {} failed; the others rebalance when its heartbeat expires: {}", owner,
                        group.describe(), e.getMessage());
            }
        }
    }
}
