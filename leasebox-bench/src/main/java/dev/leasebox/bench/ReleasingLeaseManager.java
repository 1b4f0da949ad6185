package dev.leasebox.bench;

import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The bench's view of a lease manager: times acquire, renew and release as the claim loop sees them,
 * and measures the "let leases lapse" lever without changing the product: {@link Mode#EXPIRE} sends no
 * release at all, so leases lapse at their ttl. {@link Mode#SYNC} and {@link Mode#ASYNC} send every
 * release; with ASYNC the bench builds its claim stores with the product's
 * {@code releaseInBackground(true)}, so the release is sent from the store's own thread. The claim path
 * releases only after the completion stands on the row, so no lever lets a stale write through: the
 * row's token check decides. What they cost is liveness and coordinator memory, which the benchmark
 * document weighs per backend.
 */
final class ReleasingLeaseManager extends ForwardingLeaseManager {

    /** How releases are sent. */
    enum Mode { SYNC, ASYNC, EXPIRE }

    private final Mode mode;
    private final PhaseTimer timer;

    ReleasingLeaseManager(LeaseManager delegate, Mode mode) {
        this(delegate, mode, new PhaseTimer());
    }

    /** Also times acquire, renew and release (as the claim loop sees them) into {@code timer}. */
    ReleasingLeaseManager(LeaseManager delegate, Mode mode, PhaseTimer timer) {
        super(delegate);
        this.mode = Objects.requireNonNull(mode, "mode");
        this.timer = Objects.requireNonNull(timer, "timer");
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        long started = System.nanoTime();
        try {
            return delegate.acquire(request);
        } finally {
            timer.record("acquire", System.nanoTime() - started);
        }
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        long started = System.nanoTime();
        try {
            return delegate.renew(leases);
        } finally {
            timer.record("renew", System.nanoTime() - started);
        }
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        long started = System.nanoTime();
        try {
            return sendRelease(leases);
        } finally {
            timer.record("release", System.nanoTime() - started);
        }
    }

    private List<Lease> sendRelease(Collection<Lease> leases) {
        return mode == Mode.EXPIRE ? List.of() : delegate.release(leases);
    }
}
