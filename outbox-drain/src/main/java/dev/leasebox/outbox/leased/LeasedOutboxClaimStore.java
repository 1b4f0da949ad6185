package dev.leasebox.outbox.leased;

import dev.leasebox.lease.LapsingLeases;
import dev.leasebox.lease.PeerRanking;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimLossListener;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

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
 * {@link ClaimLossListener}s as the entry ids concerned.
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
    private static final int RELEASE_QUEUE = 64;
    private static final Duration RELEASE_DRAIN = Duration.ofSeconds(10);

    private final FencedOutboxStore store;
    private final LeaseManager leases;
    private final Clock clock;
    private final ClaimMode mode;
    private final ReleaseAfterCompletion release;
    private final int overAsk;
    private final Map<Long, Lease> held = new ConcurrentHashMap<>();
    /** Candidate ids of claims in progress (between the candidate read and the grant), of every loop. */
    private final Set<Long> asking = ConcurrentHashMap.newKeySet();
    /** Ids whose leases a background release has yet to give back. */
    private final Set<Long> releasing = ConcurrentHashMap.newKeySet();
    /** The background releaser, or null when releases are sent by the completing thread. */
    private final ThreadPoolExecutor releaser;
    private final List<ClaimLossListener> listeners = new CopyOnWriteArrayList<>();

    private LeasedOutboxClaimStore(Builder b) {
        this.store = b.store;
        this.leases = b.leases;
        this.clock = b.clock;
        this.mode = b.mode;
        this.release = b.release;
        this.overAsk = b.overAsk;
        this.releaser = b.releaseInBackground ? backgroundReleaser() : null;
        leases.addLeaseLossListener(new Forwarder());
    }

    /**
     * One thread and a short queue: when releases fall behind (the coordinator is slower than the
     * claims), the completing thread sends its release itself, which slows claiming down to the pace of
     * releasing instead of letting held keys pile up.
     */
    private static ThreadPoolExecutor backgroundReleaser() {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(RELEASE_QUEUE), runnable -> {
            Thread thread = new Thread(runnable, "leasebox-lease-release");
            thread.setDaemon(true);
            return thread;
        }, (task, pool) -> task.run());
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
        Set<Long> busy = new HashSet<>(asking);
        busy.addAll(releasing);
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
        asking.addAll(candidates);
        try {
            List<String> keys = candidates.stream().map(LeasedOutboxClaimStore::leaseKey).toList();
            LeaseRequest leaseRequest = new LeaseRequest(keys, request.owner(), request.leaseDuration())
                    .limitedTo(request.batchSize());
            return mode == ClaimMode.LEAN
                    ? acquireLean(selection, request, leaseRequest, true)
                    : acquireAndRecord(selection, request, leaseRequest, true);
        } finally {
            asking.removeAll(candidates);
        }
    }

    /**
     * The lean claim: leases for {@code keys}, then one read of the granted rows. A row no longer
     * eligible (its previous holder completed it, or a retry time was set, between the candidate read
     * and the grant) and a fence at or below the row's high-water mark (which could never complete)
     * both have their lease released before anything is emitted; for the latter the floor is raised and
     * those keys are tried once more. Nothing is written.
     */
    private List<OutboxClaim> acquireLean(ClaimSelection selection, ClaimRequest request, LeaseRequest leaseRequest,
                                          boolean mayRaiseFloor) {
        List<Lease> granted = leases.acquire(leaseRequest);
        if (granted.isEmpty()) {
            return List.of();
        }
        Map<Long, Lease> byEntry = new LinkedHashMap<>();
        for (Lease lease : granted) {
            long id = entryIdOf(lease.key()).orElseThrow(
                    () -> new IllegalStateException("lease manager granted an unrequested key " + lease.key()));
            byEntry.put(id, lease);
        }
        Map<Long, OutboxEntry> eligible = new HashMap<>();
        try {
            store.findEligible(selection, byEntry.keySet()).forEach(e -> eligible.put(e.id(), e));
        } catch (RuntimeException e) {
            releaseQuietly(List.copyOf(byEntry.values()));
            throw e;
        }
        List<OutboxClaim> claims = new ArrayList<>(eligible.size());
        List<Lease> refused = new ArrayList<>();
        List<String> retryKeys = new ArrayList<>();
        long highWater = 0;
        for (Map.Entry<Long, Lease> grant : byEntry.entrySet()) {
            long id = grant.getKey();
            Lease lease = grant.getValue();
            OutboxEntry entry = eligible.get(id);
            if (entry == null) {
                refused.add(lease);
            } else if (lease.fence() <= entry.fenceHighWater()) {
                refused.add(lease);
                retryKeys.add(lease.key());
                highWater = Math.max(highWater, entry.fenceHighWater());
            } else {
                Instant expiresAt = lease.grantedAt().plus(lease.ttl());
                int attempt = entry.claimAttemptCount() + 1;
                OutboxEntry asClaimed = entry.toBuilder()
                        .claim(lease.owner(), lease.fence(), lease.grantedAt(), expiresAt, attempt).build();
                claims.add(new OutboxClaim(asClaimed, lease.owner(), lease.fence(), lease.grantedAt(), expiresAt, attempt));
                held.put(id, lease);
            }
        }
        releaseQuietly(refused);
        if (!retryKeys.isEmpty() && raiseFloorForRetry(highWater, retryKeys.size(), mayRaiseFloor)) {
            claims.addAll(acquireLean(selection, request, retryRequest(request, retryKeys), false));
        }
        claims.sort(Comparator.comparingLong(OutboxClaim::entryId));
        return claims;
    }

    /** The retry after a raised floor: the refused keys again, all of them (they were granted once already). */
    private static LeaseRequest retryRequest(ClaimRequest request, List<String> keys) {
        return new LeaseRequest(keys, request.owner(), request.leaseDuration());
    }

    /**
     * After fences at or below a row's high-water mark: raises the manager's floor to {@code highWater}
     * and says whether to retry those {@code keys} keys (once per claim call).
     */
    private boolean raiseFloorForRetry(long highWater, int keys, boolean mayRaiseFloor) {
        if (!mayRaiseFloor) {
            log.warn("{} granted fences not above the outbox's high-water mark for {} rows even after raising "
                    + "its fence floor; those rows are skipped this round", leases.describe(), keys);
            return false;
        }
        if (!leases.raiseFenceFloor(highWater)) {
            log.warn("{} granted fences at or below the outbox's high-water mark {} and cannot raise its fence floor: "
                    + "{} rows refused (no stale write was accepted). Was the coordinator's data wiped?",
                    leases.describe(), highWater, keys);
            return false;
        }
        log.info("{}: fences were not above the outbox's high-water mark {}; raised the fence floor and retrying {} rows",
                leases.describe(), highWater, keys);
        return true;
    }

    private List<OutboxClaim> acquireAndRecord(ClaimSelection selection, ClaimRequest request, LeaseRequest leaseRequest,
                                               boolean mayRaiseFloor) {
        List<Lease> granted = leases.acquire(leaseRequest);
        if (granted.isEmpty()) {
            return List.of();
        }
        Map<Long, Lease> byEntry = new HashMap<>();
        List<ClaimGrant> grants = new ArrayList<>(granted.size());
        for (Lease lease : granted) {
            long id = entryIdOf(lease.key()).orElseThrow(
                    () -> new IllegalStateException("lease manager granted an unrequested key " + lease.key()));
            byEntry.put(id, lease);
            grants.add(new ClaimGrant(id, lease.owner(), lease.fence(), lease.grantedAt(),
                    lease.grantedAt().plus(lease.ttl())));
        }
        ClaimRecording recording = store.recordClaims(selection, grants);
        for (OutboxClaim claim : recording.recorded()) {
            held.put(claim.entryId(), byEntry.get(claim.entryId()));
        }
        if (recording.refused().isEmpty()) {
            return recording.recorded();
        }
        List<Lease> refusedLeases = new ArrayList<>();
        List<String> retryKeys = new ArrayList<>();
        long highWater = 0;
        for (ClaimRecording.Refusal refusal : recording.refused()) {
            refusedLeases.add(byEntry.get(refusal.grant().entryId()));
            if (refusal.reason() == ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER) {
                retryKeys.add(leaseKey(refusal.grant().entryId()));
                highWater = Math.max(highWater, refusal.fenceHighWater());
            }
        }
        releaseQuietly(refusedLeases);
        if (retryKeys.isEmpty() || !raiseFloorForRetry(highWater, retryKeys.size(), mayRaiseFloor)) {
            return recording.recorded();
        }
        List<OutboxClaim> all = new ArrayList<>(recording.recorded());
        all.addAll(acquireAndRecord(selection, request, retryRequest(request, retryKeys), false));
        return all;
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
                ? completeLean(completions)
                : store.completeAll(completions);
        List<OutboxClaim> toRelease = new ArrayList<>(completions.size());
        List<OutboxClaim> toForget = new ArrayList<>();
        for (int i = 0; i < completions.size(); i++) {
            OutboxClaim claim = completions.get(i).claim();
            boolean releases = i >= outcomes.size() || release.releases(outcomes.get(i));
            (releases ? toRelease : toForget).add(claim);
        }
        takeLeases(toForget);
        releaseAfterCompletion(takeLeases(toRelease));
        return outcomes;
    }

    /**
     * Lean completions: only claims whose lease this store still holds under the claim's fence are written
     * (fence-checked by the store); a claim whose lease this store knows it lost, released or never held
     * writes nothing and is refused by what the row says now (a newer grant of the key here: reclaimed).
     */
    private List<CompletionOutcome> completeLean(List<ClaimCompletion> completions) {
        CompletionOutcome[] outcomes = new CompletionOutcome[completions.size()];
        List<ClaimCompletion> written = new ArrayList<>(completions.size());
        List<Integer> writtenAt = new ArrayList<>(completions.size());
        for (int i = 0; i < completions.size(); i++) {
            OutboxClaim claim = completions.get(i).claim();
            Lease lease = held.get(claim.entryId());
            if (lease != null && lease.fence() == claim.token()) {
                written.add(completions.get(i));
                writtenAt.add(i);
            } else {
                long newer = lease == null ? 0 : lease.fence();
                outcomes[i] = store.find(claim.entryId())
                        .map(row -> row.status().isTerminal() ? new CompletionOutcome.AlreadyTerminal(claim.token(), row)
                                : newer > claim.token() || row.fenceHighWater() > claim.token()
                                ? new CompletionOutcome.Reclaimed(claim.token(), row)
                                : (CompletionOutcome) new CompletionOutcome.StaleToken(claim.token(), row))
                        .orElseGet(() -> new CompletionOutcome.Missing(claim.token(), claim.entryId()));
            }
        }
        List<CompletionOutcome> fenced = written.isEmpty() ? List.of() : store.completeAllFenced(written);
        for (int k = 0; k < fenced.size(); k++) {
            outcomes[writtenAt.get(k)] = fenced.get(k);
        }
        return List.of(outcomes);
    }

    /**
     * Releases completed claims' leases, on the background releaser when there is one. Until it has,
     * their rows are left out of this store's candidates: asking for a key this store still holds could
     * only be refused.
     */
    private void releaseAfterCompletion(List<Lease> toRelease) {
        if (releaser == null || toRelease.isEmpty()) {
            releaseQuietly(toRelease);
            return;
        }
        List<Long> ids = toRelease.stream().map(lease -> entryIdOf(lease.key()).orElseThrow()).toList();
        releasing.addAll(ids);
        releaser.execute(() -> {
            try {
                releaseQuietly(toRelease);
            } finally {
                releasing.removeAll(ids);
            }
        });
    }

    /**
     * Waits up to ten seconds for the background releases still pending (none without
     * {@link Builder#releaseInBackground(boolean)}); leases not released by then lapse at their ttl.
     * The store must not be used afterwards. The lease manager is the caller's to close, after this.
     */
    @Override
    public void close() {
        if (releaser == null) {
            return;
        }
        releaser.shutdown();
        try {
            if (!releaser.awaitTermination(RELEASE_DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("{} lease releases still pending on {} after {}; those leases lapse at their ttl",
                        releasing.size(), leases.describe(), RELEASE_DRAIN);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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

    /** A release that fails leaves the lease to expire: the completion already stands on the row. */
    private void releaseQuietly(List<Lease> toRelease) {
        if (toRelease.isEmpty()) {
            return;
        }
        try {
            leases.release(toRelease);
        } catch (LeaseManagerException e) {
            log.warn("Could not release {} leases on {} (they will expire by themselves): {}",
                    toRelease.size(), leases.describe(), e.getMessage());
        }
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
         * claim loop does not wait for the release's round trip (measured: ZooKeeper, one worker, batches
         * of 10, about 17 % more rows a second); the keys come free a moment later
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

    private final class Forwarder implements LeaseLossListener {
        @Override
        public void leasesLost(LeaseLoss loss) {
            Set<Long> ids = new LinkedHashSet<>();
            for (Lease lease : loss.leases()) {
                entryIdOf(lease.key()).ifPresent(id -> {
                    Lease current = held.get(id);
                    if (current != null && current.sameGrant(lease) && held.remove(id, current)) {
                        ids.add(id);
                    }
                });
            }
            if (!ids.isEmpty()) {
                String cause = loss.cause() + ": " + loss.detail();
                listeners.forEach(l -> l.claimsLost(Set.copyOf(ids), cause));
            }
        }

        @Override
        public void connectionSuspended(String detail) {
            listeners.forEach(l -> l.claimsAtRisk(detail));
        }

        @Override
        public void connectionRestored(String detail) {
            listeners.forEach(ClaimLossListener::claimsSafeAgain);
        }
    }
}
