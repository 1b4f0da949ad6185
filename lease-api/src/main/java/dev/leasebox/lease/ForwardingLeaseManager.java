package dev.leasebox.lease;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A lease manager that forwards every operation, the SPI's default ones included, to another: extend
 * it to observe or change one operation (metering, timing, a test's view of a shared coordinator)
 * without re-stating the rest, and without silently dropping an operation the SPI gains later.
 */
public abstract class ForwardingLeaseManager implements LeaseManager {

    protected final LeaseManager delegate;

    protected ForwardingLeaseManager(LeaseManager delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        return delegate.acquire(request);
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        return delegate.renew(leases);
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        return delegate.release(leases);
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        delegate.addLeaseLossListener(listener);
    }

    @Override
    public boolean raiseFenceFloor(long floor) {
        return delegate.raiseFenceFloor(floor);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** This decorator first, then what the manager it decorates offers. */
    @Override
    public <T> Optional<T> as(Class<T> capability) {
        return capability.isInstance(this) ? Optional.of(capability.cast(this)) : delegate.as(capability);
    }
}
