package dev.leasebox.claim.leased;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.outbox.ClaimLossListener;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tells a {@link LeasedOutboxClaimStore}'s {@link ClaimLossListener}s what its lease manager reports: the
 * entry ids of lost leases that were still the store's current grants (which it forgets), and connection
 * trouble as claims at risk. A lost lease whose claim call is still in progress is recorded for that call
 * first ({@link ClaimsInProgress}), so a loss reported before the grant reaches the held map is not
 * dropped: the call then hands the row out to nobody.
 */
final class ClaimLossForwarder implements LeaseLossListener {

    private final Map<Long, Lease> held;
    private final ClaimsInProgress inProgress;
    private final List<ClaimLossListener> listeners;

    ClaimLossForwarder(Map<Long, Lease> held, ClaimsInProgress inProgress, List<ClaimLossListener> listeners) {
        this.held = held;
        this.inProgress = inProgress;
        this.listeners = listeners;
    }

    @Override
    public void leasesLost(LeaseLoss loss) {
        Set<Long> ids = new LinkedHashSet<>();
        for (Lease lease : loss.leases()) {
            LeasedOutboxClaimStore.entryIdOf(lease.key()).ifPresent(id -> {
                inProgress.lost(id, lease); // before the held map is read: see ClaimsInProgress
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
