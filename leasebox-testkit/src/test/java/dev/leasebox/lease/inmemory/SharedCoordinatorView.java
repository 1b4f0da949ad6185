package dev.leasebox.lease.inmemory;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One client's view of a shared {@link InMemoryLeaseManager}, the way each node has its own
 * connection to one coordinator: losses are reported only to this client's listeners, and closing
 * it leaves the coordinator and the other clients running.
 */
final class SharedCoordinatorView implements LeaseManager {

    private final InMemoryLeaseManager coordinator;
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    SharedCoordinatorView(InMemoryLeaseManager coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        ensureOpen();
        return coordinator.acquire(request);
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        ensureOpen();
        List<Lease> held = coordinator.renew(leases);
        List<Lease> lost = new ArrayList<>();
        for (Lease lease : leases) {
            if (held.stream().noneMatch(lease::sameGrant)) {
                lost.add(lease);
            }
        }
        if (!lost.isEmpty()) {
            LeaseLoss loss = new LeaseLoss(lost, LeaseLoss.Cause.RENEWAL_REFUSED,
                    "in-memory coordinator: lease expired or held by another grant");
            listeners.forEach(l -> l.leasesLost(loss));
        }
        return held;
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        ensureOpen();
        return coordinator.release(leases);
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
    }

    @Override
    public boolean raiseFenceFloor(long floor) {
        return coordinator.raiseFenceFloor(floor);
    }

    @Override
    public String describe() {
        return "client of " + coordinator.describe();
    }

    @Override
    public void close() {
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this client of the in-memory lease manager is closed");
        }
    }
}
