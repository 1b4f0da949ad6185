package dev.leasebox.claim.leased;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One claim's lease request turned into claims ({@link LeasedOutboxClaimStore}): the grant, then the
 * mode's database round trip (recorded: the grants written as the rows' claims; lean: the granted rows
 * read), then, for fences the rows refused as not above their high-water mark, the manager's fence floor
 * raised and those keys tried once more. Granted leases that do not become claims are released; those
 * that do are put in {@code held}. A grant whose loss was reported while the call ran (in either round
 * trip) is handed out to nobody: it is put in {@code held} first and then checked against the call's
 * reported losses, which the loss forwarder records before it reads {@code held}
 * ({@link ClaimsInProgress}); a recorded claim of it stays on its row until the row's claim expires.
 */
final class LeaseGrants {

    private static final Logger log = LoggerFactory.getLogger(LeasedOutboxClaimStore.class);

    private final FencedOutboxStore store;
    private final LeaseManager leases;
    private final Map<Long, Lease> held;
    private final LeaseReleases releases;
    private final Consumer<Set<Long>> takenOver;

    LeaseGrants(FencedOutboxStore store, LeaseManager leases, Map<Long, Lease> held, LeaseReleases releases,
                Consumer<Set<Long>> takenOver) {
        this.store = store;
        this.leases = leases;
        this.held = held;
        this.releases = releases;
        this.takenOver = takenOver;
    }

    /**
     * The lean claim: leases for {@code keys}, then one read of the granted rows. A row no longer
     * eligible (its previous holder completed it, or a retry time was set, between the candidate read
     * and the grant) and a fence at or below the row's high-water mark (which could never complete)
     * both have their lease released before anything is emitted; for the latter the floor is raised and
     * those keys are tried once more. Nothing is written.
     */
    List<OutboxClaim> lean(ClaimSelection selection, ClaimRequest request, LeaseRequest leaseRequest,
                           ClaimsInProgress.Call call, boolean mayRaiseFloor) {
        List<Lease> granted = leases.acquire(leaseRequest);
        if (granted.isEmpty()) {
            return List.of();
        }
        Map<Long, Lease> byEntry = new LinkedHashMap<>();
        for (Lease lease : granted) {
            long id = LeasedOutboxClaimStore.entryIdOf(lease.key()).orElseThrow(
                    () -> new IllegalStateException("lease manager granted an unrequested key " + lease.key()));
            byEntry.put(id, lease);
        }
        Map<Long, OutboxEntry> eligible = new HashMap<>();
        try {
            store.findEligible(selection, byEntry.keySet()).forEach(e -> eligible.put(e.id(), e));
        } catch (RuntimeException e) {
            releases.quietly(List.copyOf(byEntry.values()));
            throw e;
        }
        List<OutboxClaim> claims = new ArrayList<>(eligible.size());
        List<Lease> refused = new ArrayList<>();
        List<Long> lost = new ArrayList<>();
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
            } else if (!hold(id, lease, call)) {
                lost.add(id);
            } else {
                Instant expiresAt = lease.grantedAt().plus(lease.ttl());
                int attempt = entry.claimAttemptCount() + 1;
                OutboxEntry asClaimed = entry.toBuilder()
                        .claim(lease.owner(), lease.fence(), lease.grantedAt(), expiresAt, attempt).build();
                claims.add(new OutboxClaim(asClaimed, lease.owner(), lease.fence(), lease.grantedAt(), expiresAt, attempt));
            }
        }
        reportLostWhileClaiming(lost);
        releases.quietly(refused);
        if (!retryKeys.isEmpty() && raiseFloorForRetry(highWater, retryKeys.size(), mayRaiseFloor)) {
            claims.addAll(lean(selection, request, retryRequest(request, retryKeys), call, false));
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

    /**
     * Puts {@code lease} in {@code held} unless its loss was reported while {@code call} ran; says whether it
     * did. The order (put, then look at the call's losses) pairs with the forwarder's (record the loss, then
     * look at {@code held}): one of the two always sees the other.
     */
    private boolean hold(long id, Lease lease, ClaimsInProgress.Call call) {
        held.put(id, lease);
        if (call.wasLost(lease)) {
            held.remove(id, lease);
            return false;
        }
        return true;
    }

    private void reportLostWhileClaiming(List<Long> ids) {
        if (!ids.isEmpty()) {
            log.warn("{} reported the leases on entries {} lost while they were being claimed; they are not handed out "
                    + "(a recorded claim stays on its row until it expires, then the row is claimable again)",
                    leases.describe(), ids);
        }
    }

    List<OutboxClaim> recorded(ClaimSelection selection, ClaimRequest request, LeaseRequest leaseRequest,
                               ClaimsInProgress.Call call, boolean mayRaiseFloor) {
        List<Lease> granted = leases.acquire(leaseRequest);
        if (granted.isEmpty()) {
            return List.of();
        }
        Map<Long, Lease> byEntry = new HashMap<>();
        List<ClaimGrant> grants = new ArrayList<>(granted.size());
        for (Lease lease : granted) {
            long id = LeasedOutboxClaimStore.entryIdOf(lease.key()).orElseThrow(
                    () -> new IllegalStateException("lease manager granted an unrequested key " + lease.key()));
            byEntry.put(id, lease);
            grants.add(new ClaimGrant(id, lease.owner(), lease.fence(), lease.grantedAt(),
                    lease.grantedAt().plus(lease.ttl())));
        }
        ClaimRecording recording = store.recordClaims(selection, grants);
        if (!recording.takenOver().isEmpty()) {
            takenOver.accept(recording.takenOver()); // written to the rows, whether or not handed out below
        }
        List<OutboxClaim> claims = new ArrayList<>(recording.recorded().size());
        List<Long> lost = new ArrayList<>();
        for (OutboxClaim claim : recording.recorded()) {
            if (hold(claim.entryId(), byEntry.get(claim.entryId()), call)) {
                claims.add(claim);
            } else {
                lost.add(claim.entryId());
            }
        }
        reportLostWhileClaiming(lost);
        if (recording.refused().isEmpty()) {
            return claims;
        }
        List<Lease> refusedLeases = new ArrayList<>();
        List<String> retryKeys = new ArrayList<>();
        long highWater = 0;
        for (ClaimRecording.Refusal refusal : recording.refused()) {
            refusedLeases.add(byEntry.get(refusal.grant().entryId()));
            if (refusal.reason() == ClaimRecording.Reason.FENCE_NOT_ABOVE_HIGH_WATER) {
                retryKeys.add(LeasedOutboxClaimStore.leaseKey(refusal.grant().entryId()));
                highWater = Math.max(highWater, refusal.fenceHighWater());
            }
        }
        releases.quietly(refusedLeases);
        if (retryKeys.isEmpty() || !raiseFloorForRetry(highWater, retryKeys.size(), mayRaiseFloor)) {
            return claims;
        }
        claims.addAll(recorded(selection, request, retryRequest(request, retryKeys), call, false));
        return claims;
    }
}
