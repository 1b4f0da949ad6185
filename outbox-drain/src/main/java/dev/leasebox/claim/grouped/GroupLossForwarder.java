package dev.leasebox.claim.grouped;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;

import java.util.ArrayList;
import java.util.List;

/** The delegate's losses of group leases, as the losses of their rows; other keys' losses as they are. */
final class GroupLossForwarder implements LeaseLossListener {

    private final GroupedLeaseManager manager;

    GroupLossForwarder(GroupedLeaseManager manager) {
        this.manager = manager;
    }

    @Override
    public void leasesLost(LeaseLoss loss) {
        List<Lease> lost = new ArrayList<>();
        synchronized (manager) {
            for (Lease lease : loss.leases()) {
                if (!lease.key().startsWith(GroupedLeaseManager.GROUP_PREFIX)) {
                    lost.add(lease);
                    continue;
                }
                GroupHold hold = manager.holds().get(lease.key());
                if (hold != null && hold.fence() == lease.fence()) {
                    manager.holds().remove(lease.key());
                    lost.addAll(hold.removeAll());
                } else if (manager.asking().contains(lease.key())) {
                    // the acquire asking for it may be holding this very grant, not yet recorded
                    manager.lostWhileAsking().put(lease.key(), lease.fence());
                }
            }
        }
        manager.report(lost, loss.cause(), loss.detail());
    }

    @Override
    public void connectionSuspended(String detail) {
        manager.listeners().forEach(l -> l.connectionSuspended(detail));
    }

    @Override
    public void connectionRestored(String detail) {
        manager.listeners().forEach(l -> l.connectionRestored(detail));
    }
}
