package dev.leasebox.bench;

import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Measures the release levers without changing the product: a {@link LeaseManager} whose
 * {@link #release} is sent as usual ({@link Mode#SYNC}), handed to a background thread so the claim
 * loop does not wait for it ({@link Mode#ASYNC}), or not sent at all so leases lapse at their ttl
 * ({@link Mode#EXPIRE}). The claim path releases only after the completion stands on the row, so
 * neither lever lets a stale write through: the row's token check decides. What they cost is
 * liveness and coordinator memory, which the benchmark document weighs per backend.
 */
final class ReleasingLeaseManager extends ForwardingLeaseManager {

    /** How releases are sent. */
    enum Mode { SYNC, ASYNC, EXPIRE }

    private final Mode mode;
    private final PhaseTimer timer;
    private final ExecutorService releaser;

    ReleasingLeaseManager(LeaseManager delegate, Mode mode) {
        this(delegate, mode, new PhaseTimer());
    }

    /** Also times acquire, renew and release (as the claim loop sees them) into {@code timer}. */
    ReleasingLeaseManager(LeaseManager delegate, Mode mode, PhaseTimer timer) {
        super(delegate);
        this.mode = Objects.requireNonNull(mode, "mode");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.releaser = mode == Mode.ASYNC ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "leasebox-bench-releaser");
            t.setDaemon(true);
            return t;
        }) : null;
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
        switch (mode) {
            case ASYNC:
                List<Lease> copy = List.copyOf(leases);
                releaser.execute(() -> {
                    try {
                        delegate.release(copy);
                    } catch (RuntimeException e) {
                        // a release that fails leaves the lease to expire, as in the product
                    }
                });
                return copy;
            case EXPIRE:
                return List.of();
            default:
                return delegate.release(leases);
        }
    }

    @Override
    public void close() {
        if (releaser != null) {
            releaser.shutdown();
            try {
                releaser.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        delegate.close();
    }
}
