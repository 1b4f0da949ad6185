package dev.leasebox.claim.leased;

import java.util.Optional;
import dev.leasebox.lease.LapsingLeases;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A lease manager whose fence counter cannot be raised and whose unreleased leases are not said to
 * lapse (the SPI's default of {@code raiseFenceFloor}, and no {@code LapsingLeases}), over a
 * real in-memory coordinator; it also exposes its listeners so a test can play the coordinator's
 * connection events.
 */
final class FixedCounterLeaseManager extends ForwardingLeaseManager {

    final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();

    FixedCounterLeaseManager(LeaseManager coordinator) {
        super(coordinator);
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
        delegate.addLeaseLossListener(listener);
    }

    @Override
    public String describe() {
        return "fixed-counter view of " + delegate.describe();
    }

    @Override
    public boolean raiseFenceFloor(long floor) {
        return false;
    }

    /** Its unreleased leases are not said to lapse, whatever the manager it decorates says. */
    @Override
    public <T> Optional<T> as(Class<T> capability) {
        return capability == LapsingLeases.class ? Optional.empty() : super.as(capability);
    }
}
