package dev.leasebox.outbox.leased;

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
 * trouble as claims at risk.
 */
final class ClaimLossForwarder implements LeaseLossListener {

    private final Map<Long, Lease> held;
    private final List<ClaimLossListener> listeners;

    ClaimLossForwarder(Map<Long, Lease> held, List<ClaimLossListener> listeners) {
        this.held = held;
        this.listeners = listeners;
    }

    @Override
    public void leasesLost(LeaseLoss loss) {
        Set<Long> ids = new LinkedHashSet<>();
        for (Lease lease : loss.leases()) {
            LeasedOutboxClaimStore.entryIdOf(lease.key()).ifPresent(id -> {
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
