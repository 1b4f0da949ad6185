package dev.leasebox.claim.leased;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.lease.LapsingLeases;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link OutboxClaimStore} whose claims are leases held in an external {@link LeaseManager},
 * over the rows of a {@link FencedOutboxStore}: the claim path of the architecture note.
 *
 * <pre>
 *              RECORDED (default)                           LEAN
 * candidates   store.findClaimCandidateIds(query: k*batch, stripe) same                     -- 1 database read (ids)
 * leases       leaseManager.acquire(keys, at most batch)      same                          -- 1 coordinator round trip
 * claims       store.recordClaims(grants)  (a write)          store.findEligible(granted)   -- 1 database round trip
 *              release(leases that did not become claims)     same                          -- only if any
 * ... emit, renewing the leases (and, RECORDED only, the rows' claim expiry) ...
 * completion   store.completeAll  token == claim_token        store.completeAllFenced  fence &gt; fence_high_water
 * release      the leases {@link ReleaseAfterCompletion} names  same                          -- 1 coordinator round trip
 * </pre>
 *
 * <p>Guarantees, {@link ClaimMode#RECORDED}: a claim is returned only when its lease was granted
 * <em>and</em> the row accepted the lease's fence as its new claim token; every completion is
 * token-checked by the row. {@link ClaimMode#LEAN}: a claim is returned only when its lease was granted
 * <em>and</em> a read of the row after the grant found it eligible with a high-water mark below the
 * lease's fence; nothing is written until the completion, which is fence-checked by the row
 * ({@link FencedOutboxStore#completeAllFenced}); {@link ClaimMode} spells out what that weakens. In both modes, when a fence is not above a row's high-water mark (the
 * coordinator's counter went back after data loss), the store raises the manager's fence floor to that
 * mark and tries those keys once more in the same call. The floor is raised at open to the outbox's
 * highest recorded fence as well. Lease losses reported by the manager are forwarded to
 * {@link ClaimLossListener}s as the entry ids concerned; a loss reported while the claim call that made
 * the grant is still running (in its coordinator or database round trip) makes that call leave the row
 * out of its claims, so no loss reported after a grant goes unheard ({@link ClaimsInProgress}). Recorded
 * claims that took a row over from an earlier claim still on it, expired and never completed, are reported
 * to the same listeners ({@link ClaimLossListener#claimsTakenOver}) as the fenced store's recording says;
 * lean claims write nothing to tell it by.
 *
 * <p>The claim asks for {@code k} times as many keys as its batch ({@link Builder#candidateOverAsk},
 * default 2) and lets the coordinator grant at most a batch of them ({@link LeaseRequest#limitedTo}):
 * keys that concurrent workers hold or are taking are skipped in the same round trip, so batches come
 * back full instead of two-thirds full.
 *
 * <p>Candidates come in stripes when the manager knows its rank among its live peers
 * ({@link dev.leasebox.lease.PeerRanking}: ZooKeeper, Hazelcast): each worker prefers the rows whose {@code id mod peers}
 * is its rank ({@link CandidateStripe}), so concurrent workers' first choices are disjoint and an
 * all-or-nothing batch grant (a ZooKeeper multi) commits in one round.
 * Rows this store's own claim loops are asking for, or hold under a lease still locally valid, are
 * left out of its candidates.
 *
 * <p>With {@link Builder#releaseInBackground(boolean)} the leases of a completed batch are released by a
 * thread of this store instead of the claim loop, which goes on to its next claim without waiting for
 * that round trip; {@link #close()} waits for the releases still pending.
 *
 * <p>Lease keys are {@code row-<id>}.
 */
public final class LeasedOutboxClaimStore implements OutboxClaimStore, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeasedOutboxClaimStore.class);
    private static final String KEY_PREFIX = "row-";

    private final FencedOutboxStore store;
    private final LeaseManager leases;
    private final Clock clock;
    private final ClaimMode mode;
    private final ReleaseAfterCompletion release;
    private final int overAsk;
    private final Map<Long, Lease> held = new ConcurrentHashMap<>();
    /** Claims in progress (from the candidate read until their grants are held), of every loop. */
    private final ClaimsInProgress inProgress = new ClaimsInProgress();
    private final LeaseReleases releases;
    private final LeaseGrants grants;
    private final LeanCompletion leanCompletion;
    private final List<ClaimLossListener> listeners = new CopyOnWriteArrayList<>();

    private LeasedOutboxClaimStore(Builder b) {
        this.store = b.store;
        this.leases = b.leases;
        this.clock = b.clock;
        this.mode = b.mode;
        this.release = b.release;
        this.overAsk = b.overAsk;
        this.releases = new LeaseReleases(b.leases, b.releaseInBackground);
        this.grants = new LeaseGrants(b.store, b.leases, held, releases,
                ids -> listeners.forEach(l -> l.claimsTakenOver(ids)));
        this.leanCompletion = new LeanCompletion(b.store, held);
        leases.addLeaseLossListener(new ClaimLossForwarder(held, inProgress, listeners));
    }


    /**
     * Layers {@code leases} over {@code store} with the defaults ({@link ClaimMode#RECORDED},
     * {@link ReleaseAfterCompletion#ALWAYS}); see {@link Builder#open()}.
     */
    public static LeasedOutboxClaimStore open(FencedOutboxStore store, LeaseManager leases, Clock clock) {
        return builder(store, leases, clock).open();
    }

    /** Starts configuring a store that layers {@code leases} over {@code store}. */
    public static Builder builder(FencedOutboxStore store, LeaseManager leases, Clock clock) {
        return new Builder(store, leases, clock);
    }

    /** How this store claims. */
    public ClaimMode claimMode() {
        return mode;
    }

    /** Which leases this store releases after completion. */
    public ReleaseAfterCompletion releaseAfterCompletion() {
        return release;
    }

    /** The lease key of an outbox row. */
    public static String leaseKey(long entryId) {
        return KEY_PREFIX + entryId;
    }

    /** The row id of a lease key made by {@link #leaseKey(long)}. */
    public static Optional<Long> entryIdOf(String leaseKey) {
        if (!leaseKey.startsWith(KEY_PREFIX)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(leaseKey.substring(KEY_PREFIX.length())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * One claim: candidate ids from the store (this manager's stripe first, when the manager knows its
     * {@link dev.leasebox.lease.PeerRanking rank}; without the rows this store's other claim loops are asking
     * for or hold), one lease request for them, then the mode's database round trip.
     */
    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        CandidateStripe stripe = leases.as(PeerRanking.class).flatMap(PeerRanking::peerRank)
                .map(rank -> CandidateStripe.of(rank, RowBlockLeases.of(leases))).orElse(CandidateStripe.ALL);
        Instant now = clock.instant();
        Set<Long> busy = inProgress.asking();
        busy.addAll(releases.pending());
        held.forEach((id, lease) -> {
            if (lease.isLocallyValid(now)) {
                busy.add(id); // a lapsed one is a candidate again, for this store as for anyone
            }
        });
        List<Long> candidates = store.findClaimCandidateIds(
                new CandidateQuery(selection, request.batchSize(), overAsk, stripe, busy));
        if (candidates.isEmpty()) {
            return List.of();
        }
        try (ClaimsInProgress.Call call = inProgress.open(candidates)) {
            List<String> keys = candidates.stream().map(LeasedOutboxClaimStore::leaseKey).toList();
            LeaseRequest leaseRequest = new LeaseRequest(keys, request.owner(), request.leaseDuration())
                    .limitedTo(request.batchSize());
            return mode == ClaimMode.LEAN
                    ? grants.lean(selection, request, leaseRequest, call, true)
                    : grants.recorded(selection, request, leaseRequest, call, true);
        }
    }





    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        return completeAll(List.of(new ClaimCompletion(claim, completion))).get(0);
    }

    /**
     * Writes the batch's completions in one round trip (token-checked when {@link ClaimMode#RECORDED},
     * fence-checked when {@link ClaimMode#LEAN}), then releases in one more the leases that
     * {@link ReleaseAfterCompletion} says to release (on this thread, or handed to the background
     * releaser); the others are forgotten here and lapse at their ttl.
     */
    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        if (completions.isEmpty()) {
            return List.of();
        }
        List<CompletionOutcome> outcomes = mode == ClaimMode.LEAN
                ? leanCompletion.write(completions)
                : store.completeAll(completions);
        List<OutboxClaim> toRelease = new ArrayList<>(completions.size());
        List<OutboxClaim> toForget = new ArrayList<>();
        for (int i = 0; i < completions.size(); i++) {
            OutboxClaim claim = completions.get(i).claim();
            boolean releases = i >= outcomes.size() || release.releases(outcomes.get(i));
            (releases ? toRelease : toForget).add(claim);
        }
        takeLeases(toForget);
        releases.afterCompletion(takeLeases(toRelease));
        return outcomes;
    }




    /**
     * Waits up to ten seconds for the background releases still pending (none without
     * {@link Builder#releaseInBackground(boolean)}); leases not released by then lapse at their ttl.
     * The store must not be used afterwards. The lease manager is the caller's to close, after this.
     */
    @Override
    public void close() {
        releases.close();
    }

    @Override
    public List<OutboxClaim> renewClaims(List<OutboxClaim> claims, Duration leaseDuration) {
        if (claims.isEmpty()) {
            return List.of();
        }
        List<Lease> toRenew = new ArrayList<>();
        for (OutboxClaim claim : claims) {
            Lease lease = held.get(claim.entryId());
            if (lease != null && lease.fence() == claim.token()) {
                toRenew.add(lease);
            }
        }
        Instant sentAt = clock.instant();
        List<Lease> renewed = toRenew.isEmpty() ? List.of() : leases.renew(toRenew);
        Set<Long> stillHeld = new LinkedHashSet<>();
        for (Lease lease : renewed) {
            long id = entryIdOf(lease.key()).orElseThrow();
            held.put(id, lease);
            stillHeld.add(id);
        }
        List<OutboxClaim> keep = claims.stream().filter(c -> stillHeld.contains(c.entryId())).toList();
        if (keep.isEmpty()) {
            return List.of();
        }
        if (mode == ClaimMode.LEAN) {
            Instant expiresAt = sentAt.plus(leaseDuration);
            return keep.stream().map(c -> c.withExpiresAt(expiresAt)).toList(); // the rows carry no claim to move
        }
        return store.extendClaims(keep, sentAt.plus(leaseDuration));
    }

    private List<Lease> takeLeases(Collection<OutboxClaim> claims) {
        List<Lease> taken = new ArrayList<>();
        for (OutboxClaim claim : claims) {
            Lease lease = held.get(claim.entryId());
            if (lease != null && lease.fence() == claim.token() && held.remove(claim.entryId(), lease)) {
                taken.add(lease);
            }
        }
        return taken;
    }


    /** The number of claims this store currently holds leases for. */
    public int heldCount() {
        return held.size();
    }

    @Override
    public long highestFenceHighWater() {
        return store.highestFenceHighWater();
    }

    @Override
    public void addClaimLossListener(ClaimLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Configures a {@link LeasedOutboxClaimStore}; {@link #open()} builds it. */
    public static final class Builder {
        private final FencedOutboxStore store;
        private final LeaseManager leases;
        private final Clock clock;
        private ClaimMode mode = ClaimMode.RECORDED;
        private ReleaseAfterCompletion release = ReleaseAfterCompletion.ALWAYS;
        private int overAsk = 2;
        private boolean releaseInBackground;

        private Builder(FencedOutboxStore store, LeaseManager leases, Clock clock) {
            this.store = Objects.requireNonNull(store, "store");
            this.leases = Objects.requireNonNull(leases, "leases");
            this.clock = Objects.requireNonNull(clock, "clock");
        }

        /** Default {@link ClaimMode#RECORDED}. */
        public Builder claimMode(ClaimMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * How many candidate keys a claim asks leases for, as a multiple of its batch (default 2; 1 asks
         * for exactly a batch): the coordinator grants at most a batch of them, skipping keys others hold.
         * A manager that grants rows a block at a time ({@link RowBlockLeases}) is asked for at
         * least {@code batch + block} keys whatever the factor ({@link CandidateQuery#sample()}).
         */
        public Builder candidateOverAsk(int factor) {
            if (factor < 1 || factor > 10) {
                throw new IllegalArgumentException("candidateOverAsk must be in 1..10, was " + factor);
            }
            this.overAsk = factor;
            return this;
        }

        /**
         * Whether a completed batch's leases are released by a thread of the store (true) or by the
         * completing thread before {@code completeAll} returns (false, the default). In the background the
         * claim loop does not wait for the release's round trip, which matters most with small batches
         * and a coordinator a round trip away; the keys come free a moment later
         * instead, and {@link LeasedOutboxClaimStore#close()} must be called to wait for the last ones.
         * Safety is the same: a release always follows its completion, which the row has checked.
         */
        public Builder releaseInBackground(boolean inBackground) {
            this.releaseInBackground = inBackground;
            return this;
        }

        /** Default {@link ReleaseAfterCompletion#ALWAYS}. */
        public Builder releaseAfterCompletion(ReleaseAfterCompletion release) {
            this.release = Objects.requireNonNull(release, "release");
            return this;
        }

        /**
         * Builds the store and raises the manager's fence floor to the outbox's highest recorded fence,
         * so that a coordinator that lost its counter starts above every row.
         *
         * @throws IllegalArgumentException when {@link ReleaseAfterCompletion#NON_TERMINAL} is asked of a
         *         manager whose unreleased leases do not lapse by themselves
         */
        public LeasedOutboxClaimStore open() {
            if (release == ReleaseAfterCompletion.NON_TERMINAL && leases.as(LapsingLeases.class).isEmpty()) {
                throw new IllegalArgumentException("Release after completion 'non-terminal' needs a lease backend whose "
                        + "unreleased leases lapse by themselves (redis); " + leases.describe() + " keeps them "
                        + "until released or until its session ends. Use 'always' with this backend.");
            }
            LeasedOutboxClaimStore claimStore = new LeasedOutboxClaimStore(this);
            long highWater = store.highestFenceHighWater();
            if (highWater > 0 && leases.raiseFenceFloor(highWater)) {
                log.info("Raised the fence floor of {} to the outbox's highest fence {}", leases.describe(), highWater);
            }
            if (mode == ClaimMode.LEAN) {
                log.warn("Lean claims through {}: a worker whose lease lapsed can still complete a row until a newer "
                        + "holder completes it (a stale dead letter can beat a delivery), and if the coordinator loses its "
                        + "data, rows in flight are emitted twice at once; recorded claims do not allow either "
                        + "(see ClaimMode)", leases.describe());
            }
            return claimStore;
        }
    }

    /** The manager this store leases through. */
    public LeaseManager leaseManager() {
        return leases;
    }
}
