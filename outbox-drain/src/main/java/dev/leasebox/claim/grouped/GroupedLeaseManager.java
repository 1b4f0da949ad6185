package dev.leasebox.claim.grouped;

import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.claim.leased.RowBlockLeases;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.lease.PeerRank;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.outbox.CandidateStripe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Rows grouped under one lease: a {@link LeaseManager} over any other that leases the drain's row keys
 * ({@code row-<id>}, {@link LeasedOutboxClaimStore#leaseKey(long)}) a group at a time. Row {@code id}
 * belongs to group key {@code row-group-<(id / block) mod groups>} ({@link LeaseGrouping}); every other
 * key is passed to the delegate as it is.
 *
 * <h2>Grants</h2>
 * A request's rows are sorted into their groups. A group this manager holds grants its rows never
 * granted under its fence with no round trip, while its lease was acquired or renewed less than half
 * the request's ttl ago (else it is renewed first, one {@code renew} call for every such group); the
 * others are asked of the delegate with one {@code acquire} per round (a round asks for the fewest
 * groups that cover the grants still wanted, a next round only when some were refused). A granted
 * group grants its rows of the request, all sharing its fence; rows beyond the request's limit are
 * not handed out and stay grantable under that fence.
 *
 * <h2>Why this is safe</h2>
 * <ul>
 *   <li><b>Exclusion.</b> A row is granted only under its group's lease, which the delegate grants one
 *       holder at a time, and at most once under one fence; a row lease's deadline is its group
 *       lease's deadline as last acquired or renewed, so it ends no later than the group lease.</li>
 *   <li><b>Fences grow per row.</b> Every earlier grant of the row was made under an earlier grant of
 *       its group, which ended before this one began and had a lower fence (the delegate's contract);
 *       and a row is never granted twice under one fence.</li>
 *   <li><b>Loss.</b> Losing a group lease (a renewal refused, the delegate's loss listeners, its
 *       deadline passing) loses every row under it; they are reported to this manager's listeners.</li>
 * </ul>
 *
 * <h2>Release and linger</h2>
 * A group's lease is released when its last row is released or lapses, except when its block is in
 * this manager's own candidate stripe (any block, when the delegate knows no {@link #peerRank() rank})
 * and a linger is configured: then it stays held, idle, for the linger, so the worker's next claim,
 * which mostly meets the same block, costs no round trip. A background thread releases it when the
 * linger ends; {@link #reap()} does the same at once (for tests).
 *
 * <p>The claim path learns the block through {@link #rowBlock()} and gives each worker a stripe of whole
 * blocks, so that a batch of consecutive rows costs one group lease per block.
 */
public final class GroupedLeaseManager implements LeaseManager, RowBlockLeases, PeerRanking {

    private static final Logger LOG = LoggerFactory.getLogger(GroupedLeaseManager.class);
    /** The prefix of group keys. A row key {@code row-<id>} never starts with it. */
    public static final String GROUP_PREFIX = "row-group-";

    private final LeaseManager delegate;
    private final LeaseGrouping grouping;
    private final boolean closesDelegate;
    private final Clock clock;
    private final Map<String, GroupHold> holds = new HashMap<>();
    /** Group keys an acquire is asking the delegate for right now. */
    private final Set<String> asking = new HashSet<>();
    /**
     * The fence of a group lease the delegate reported lost while an acquire was asking for that group, by
     * group key: the acquire's grant, if it carries that fence, is never recorded nor granted from.
     */
    private final Map<String, Long> lostWhileAsking = new HashMap<>();
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService reaper;
    private volatile boolean closed;

    private GroupedLeaseManager(Builder b) {
        this.delegate = b.delegate;
        this.grouping = b.grouping;
        this.closesDelegate = b.closesDelegate;
        this.clock = b.clock;
        delegate.addLeaseLossListener(new GroupLossForwarder(this));
        if (b.reapInterval.isZero()) {
            this.reaper = null;
        } else {
            this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "leasebox-grouped-leases");
                thread.setDaemon(true);
                return thread;
            });
            long period = b.reapInterval.toMillis();
            reaper.scheduleWithFixedDelay(this::reapQuietly, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts configuring a manager grouping {@code delegate}'s row leases as {@code grouping} says. */
    public static Builder builder(LeaseManager delegate, LeaseGrouping grouping) {
        return new Builder(delegate, grouping);
    }

    /** The group key of row {@code id}. */
    public String groupKey(long id) {
        return GROUP_PREFIX + Math.floorMod(Math.floorDiv(id, (long) grouping.block()), (long) grouping.groups());
    }

    /** The grouping this manager applies. */
    public LeaseGrouping grouping() {
        return grouping;
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        ensureOpen();
        Map<String, List<String>> rowsByGroup = new LinkedHashMap<>();
        List<String> others = new ArrayList<>();
        for (String key : request.keys()) {
            Optional<Long> id = LeasedOutboxClaimStore.entryIdOf(key);
            if (id.isPresent()) {
                rowsByGroup.computeIfAbsent(groupKey(id.get()), g -> new ArrayList<>()).add(key);
            } else {
                others.add(requireNotGroupKey(key));
            }
        }
        if (rowsByGroup.isEmpty()) {
            return delegate.acquire(request);
        }
        GroupedAcquire acquire = new GroupedAcquire(this, request, rowsByGroup);
        List<Lease> granted = acquire.run();
        int left = request.maxGrants() - granted.size();
        if (left > 0 && !others.isEmpty()) {
            List<Lease> all = new ArrayList<>(granted);
            all.addAll(delegate.acquire(new LeaseRequest(others, request.owner(), request.ttl(), request.safetyMargin(), left)));
            return all;
        }
        return granted;
    }

    /**
     * Renews each row's group lease, one delegate {@code renew} for all of them; a row is renewed with
     * its group, to the group's new deadline. A group found lapsed or refused loses every row under it.
     */
    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        ensureOpen();
        return new GroupedRenewal(this, leases).run();
    }

    /**
     * Hands rows back to their groups; a group left with no row lingers, held, when its block is in this
     * manager's stripe, else its lease is released.
     */
    @Override
    public List<Lease> release(Collection<Lease> leases) {
        ensureOpen();
        return new GroupedRelease(this, leases).run();
    }

    /** Whether a group left idle by row {@code id} lingers: a linger is set and the row is in this manager's stripe. */
    boolean lingers(long id, Optional<PeerRank> rank) {
        return !grouping.linger().isZero()
                && rank.map(r -> CandidateStripe.of(r, grouping.block()).contains(id)).orElse(true);
    }

    /**
     * Drops row leases whose deadline passed and group leases that lapsed (reporting their rows), and
     * releases the groups left idle past their linger or emptied by a lapse. Runs in the background every
     * reap interval; callable at any time.
     */
    public void reap() {
        Instant now = clock.instant();
        List<Lease> lapsed = new ArrayList<>();
        List<Lease> toRelease = new ArrayList<>();
        synchronized (this) {
            for (GroupHold hold : List.copyOf(holds.values())) {
                lapsed.addAll(hold.removeLapsed(now));
                boolean gone = !hold.lease().isLocallyValid(now);
                if (gone) {
                    lapsed.addAll(hold.removeAll());
                }
                if (gone || hold.isEmpty() && (!hold.lingering() || hold.lingerOver(now, grouping.linger()))) {
                    holds.remove(hold.groupKey());
                    toRelease.add(hold.lease());
                }
            }
        }
        report(lapsed, LeaseLoss.Cause.DEADLINE_PASSED, "not renewed within its ttl");
        releaseGroups(toRelease);
    }

    private void reapQuietly() {
        if (closed) {
            return;
        }
        try {
            reap();
        } catch (RuntimeException e) {
            LOG.warn("releasing idle row groups on {} failed: {}", delegate.describe(), e.toString());
        }
    }

    /**
     * Releases group leases this manager gave up; a failure leaves them to lapse at their ttl (their rows are
     * gone from this manager already). Every path that drops a group it did not hear lost from the delegate
     * comes here, so a group is never silently kept on the coordinator while its rows are reported lost.
     */
    void releaseGroups(List<Lease> groups) {
        if (groups.isEmpty()) {
            return;
        }
        try {
            delegate.release(groups);
        } catch (LeaseManagerException e) {
            LOG.warn("could not release {} row group leases on {} (they lapse at their ttl): {}", groups.size(), delegate.describe(), e.getMessage());
        }
    }

    // --- state shared with GroupedAcquire, GroupedRenewal and GroupLossForwarder, guarded by this manager's monitor ---

    LeaseManager delegate() {
        return delegate;
    }

    Clock clock() {
        return clock;
    }

    Map<String, GroupHold> holds() {
        return holds;
    }

    Set<String> asking() {
        return asking;
    }

    Map<String, Long> lostWhileAsking() {
        return lostWhileAsking;
    }

    /** Whether a group whose rows were all handed back stays held: as for a released row of it. */
    boolean lingersForGroupOf(String rowKey) {
        return LeasedOutboxClaimStore.entryIdOf(rowKey).map(id -> lingers(id, peerRank())).orElse(false);
    }

    List<LeaseLossListener> listeners() {
        return listeners;
    }

    void report(List<Lease> lost, LeaseLoss.Cause cause, String detail) {
        if (lost.isEmpty() || listeners.isEmpty()) {
            return;
        }
        LeaseLoss loss = new LeaseLoss(lost, cause, detail + " (rows grouped over " + delegate.describe() + ")");
        for (LeaseLossListener listener : listeners) {
            try {
                listener.leasesLost(loss);
            } catch (RuntimeException e) {
                LOG.warn("a lease loss listener failed: {}", e.toString());
            }
        }
    }

    private static String requireNotGroupKey(String key) {
        if (key.startsWith(GROUP_PREFIX)) {
            throw new IllegalArgumentException("lease key '" + key + "' starts with '" + GROUP_PREFIX
                    + "', which grouped row leases use for their groups");
        }
        return key;
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public boolean raiseFenceFloor(long floor) {
        return delegate.raiseFenceFloor(floor);
    }

    /** The rank of the manager it groups rows over, where that one knows it. */
    @Override
    public Optional<PeerRank> peerRank() {
        return delegate.as(PeerRanking.class).flatMap(PeerRanking::peerRank);
    }

    /** The rows of one group: the claim path asks for whole blocks. */
    @Override
    public int rowBlock() {
        return grouping.block();
    }

    /**
     * Itself for what it implements; never {@link dev.leasebox.lease.LapsingLeases}, whatever the manager
     * it groups over is: a row left unreleased keeps its group held until it lapses. The grouped manager's
     * {@link WakeUpChannel}, which knows no keys.
     */
    @Override
    public <T> Optional<T> as(Class<T> capability) {
        if (capability.isInstance(this)) {
            return Optional.of(capability.cast(this));
        }
        return capability == WakeUpChannel.class ? delegate.as(capability) : Optional.empty();
    }

    @Override
    public String describe() {
        return delegate.describe() + ", rows grouped (" + grouping + ")";
    }

    /** Stops the reaper, releases every group lease still held, and closes the delegate. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (reaper != null) {
            reaper.shutdownNow();
        }
        List<Lease> held;
        synchronized (this) {
            held = holds.values().stream().map(GroupHold::lease).toList();
            holds.clear();
        }
        try {
            releaseGroups(held);
        } catch (RuntimeException e) {
            LOG.debug("releasing row groups at close failed: {}", e.toString());
        }
        if (closesDelegate) {
            delegate.close();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("GroupedLeaseManager is closed: " + describe());
        }
    }

    /** Configures a {@link GroupedLeaseManager}. */
    public static final class Builder {
        private final LeaseManager delegate;
        private final LeaseGrouping grouping;
        private Clock clock = MonotonicClock.system();
        private Duration reapInterval;
        private boolean closesDelegate = true;

        private Builder(LeaseManager delegate, LeaseGrouping grouping) {
            this.delegate = Objects.requireNonNull(delegate, "delegate");
            this.grouping = Objects.requireNonNull(grouping, "grouping");
            if (!grouping.grouped()) {
                throw new IllegalArgumentException("a GroupedLeaseManager needs at least one group; LeaseGrouping.NONE leases every row on its own");
            }
            long half = Math.max(10, grouping.linger().toMillis() / 2);
            this.reapInterval = Duration.ofMillis(Math.min(half, 250));
        }

        /** The clock deadlines and lingers are judged by (default {@link MonotonicClock#system()}, the backends' own). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How often idle and lapsed groups are released in the background; zero for never (then call {@link #reap()}). */
        public Builder reapInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("reapInterval must not be negative, was " + interval);
            }
            this.reapInterval = interval;
            return this;
        }

        /** {@link GroupedLeaseManager#close()} releases its groups but leaves the delegate open (it stays its owner's). */
        public Builder leaveDelegateOpen() {
            this.closesDelegate = false;
            return this;
        }

        public GroupedLeaseManager open() {
            return new GroupedLeaseManager(this);
        }
    }
}
