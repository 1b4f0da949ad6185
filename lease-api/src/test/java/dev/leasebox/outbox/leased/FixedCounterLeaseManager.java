package dev.leasebox.outbox.leased;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A lease manager whose fence counter cannot be raised (the SPI's default {@code raiseFenceFloor}),
 * over a real in-memory coordinator; it also exposes its listeners so a test can play the
 * coordinator's connection events.
 */
final class FixedCounterLeaseManager implements LeaseManager {

    private final LeaseManager coordinator;
    final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();

    FixedCounterLeaseManager(LeaseManager coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        return coordinator.acquire(request);
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        return coordinator.renew(leases);
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        return coordinator.release(leases);
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
        coordinator.addLeaseLossListener(listener);
    }

    @Override
    public String describe() {
        return "fixed-counter view of " + coordinator.describe();
    }

    @Override
    public void close() {
        coordinator.close();
    }
}
