package dev.leasebox.outbox.leased;

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
import java.util.HashMap;
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
 * recorded on rows of a {@link FencedOutboxStore}: the claim path of the architecture note.
 *
 * <pre>
 * candidates = store.findClaimCandidates(selection, batch)   -- 1 database read
 * leases     = leaseManager.acquire(keys(candidates))        -- 1 coordinator round trip
 * claims     = store.recordClaims(leases)                     -- 1 database write, fence &gt; high-water
 * release(leases that did not become claims)                  -- 1 coordinator round trip, only if any
 * </pre>
 *
 * <p>Guarantees: a claim is returned only when its lease was granted <em>and</em> the row accepted the
 * lease's fence as its new claim token; every completion is token-checked by the row, then the
 * lease is released. When the row refuses a fence because it is not above its high-water mark (the
 * coordinator's counter went back after data loss), the store raises the manager's fence floor to
 * that mark and tries those keys once more in the same call. The floor is raised at
 * {@link #open} to the outbox's highest recorded fence as well. Lease losses reported by the manager
 * are forwarded to {@link ClaimLossListener}s as the entry ids concerned.
 *
 * <p>Lease keys are {@code row-<id>}.
 */
public final class LeasedOutboxClaimStore implements OutboxClaimStore {

    private static final Logger log = LoggerFactory.getLogger(LeasedOutboxClaimStore.class);
    private static final String KEY_PREFIX = "row-";

    private final FencedOutboxStore store;
    private final LeaseManager leases;
    private final Clock clock;
    private final Map<Long, Lease> held = new ConcurrentHashMap<>();
    private final List<ClaimLossListener> listeners = new CopyOnWriteArrayList<>();

    private LeasedOutboxClaimStore(FencedOutboxStore store, LeaseManager leases, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.clock = Objects.requireNonNull(clock, "clock");
        leases.addLeaseLossListener(new Forwarder());
    }

    /**
     * Layers {@code leases} over {@code store} and raises the manager's fence floor to the outbox's
     * highest recorded fence, so that a coordinator that lost its counter starts above every row.
     */
    public static LeasedOutboxClaimStore open(FencedOutboxStore store, LeaseManager leases, Clock clock) {
        LeasedOutboxClaimStore claimStore = new LeasedOutboxClaimStore(store, leases, clock);
        long highWater = store.highestFenceHighWater();
        if (highWater > 0 && leases.raiseFenceFloor(highWater)) {
            log.info("Raised the fence floor of {} to the outbox's highest fence {}", leases.describe(), highWater);
        }
        return claimStore;
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

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        List<OutboxEntry> candidates = store.findClaimCandidates(selection, request.batchSize());
        if (candidates.isEmpty()) {
            return List.of();
        }
        List<String> keys = candidates.stream().map(e -> leaseKey(e.id())).toList();
        return acquireAndRecord(selection, request, keys, true);
    }

    private List<OutboxClaim> acquireAndRecord(ClaimSelection selection, ClaimRequest request, List<String> keys,
                                               boolean mayRaiseFloor) {
        LeaseRequest leaseRequest = new LeaseRequest(keys, request.owner(), request.leaseDuration());
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
        if (retryKeys.isEmpty() || !mayRaiseFloor) {
            if (!retryKeys.isEmpty()) {
                log.warn("{} granted fences not above the outbox's high-water mark for {} rows even after raising "
                        + "its fence floor; those rows are skipped this round", leases.describe(), retryKeys.size());
            }
            return recording.recorded();
        }
        if (!leases.raiseFenceFloor(highWater)) {
            log.warn("{} granted fences at or below the outbox's high-water mark {} and cannot raise its fence floor: "
                    + "{} rows refused (no stale write was accepted). Was the coordinator's data wiped?",
                    leases.describe(), highWater, retryKeys.size());
            return recording.recorded();
        }
        log.info("{}: fences were not above the outbox's high-water mark {}; raised the fence floor and retrying {} rows",
                leases.describe(), highWater, retryKeys.size());
        List<OutboxClaim> all = new ArrayList<>(recording.recorded());
        all.addAll(acquireAndRecord(selection, request, retryKeys, false));
        return all;
    }

    @Override
    public CompletionOutcome complete(OutboxClaim claim, Completion completion) {
        CompletionOutcome outcome = store.complete(claim, completion);
        releaseQuietly(takeLeases(List.of(claim)));
        return outcome;
    }

    @Override
    public List<CompletionOutcome> completeAll(List<ClaimCompletion> completions) {
        if (completions.isEmpty()) {
            return List.of();
        }
        List<CompletionOutcome> outcomes = store.completeAll(completions);
        releaseQuietly(takeLeases(completions.stream().map(ClaimCompletion::claim).toList()));
        return outcomes;
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

    @Override
    public OutboxEntry enqueue(OutboxMessage message) {
        return store.enqueue(message);
    }

    @Override
    public List<OutboxEntry> findPending(int limit) {
        return store.findPending(limit);
    }

    @Override
    public List<OutboxEntry> findRetryReady(int limit) {
        return store.findRetryReady(limit);
    }

    @Override
    public OutboxEntry save(OutboxEntry entry) {
        return store.save(entry);
    }

    @Override
    public Optional<OutboxEntry> find(long id) {
        return store.find(id);
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
