package dev.leasebox.lease.inmemory;

import dev.leasebox.lease.LapsingLeases;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A lease manager whose coordinator is this object: the reference implementation of the lease
 * contract, for unit tests and single-process use.
 *
 * <p>Guarantees: every operation is atomic under one lock; expiry is decided by the injected
 * {@link Clock} (the "coordinator's clock"), a lease being held while {@code now < grantedAt + ttl};
 * fences come from one counter shared by all keys, so they grow per key and globally. Several
 * owners (workers) may share one instance, as they would share one coordinator.
 *
 * <p>Leases are lost only by expiry; a renewal that finds its lease gone or superseded reports it
 * to the listeners with {@link LeaseLoss.Cause#RENEWAL_REFUSED}. {@link #loseFenceCounter(long)}
 * simulates a coordinator that lost its data, for testing the fence floor.
 */
public final class InMemoryLeaseManager implements LeaseManager, LapsingLeases {

    private record Holder(String owner, long fence, Instant expiresAt) {
    }

    /** Expired holders are dropped once this many are kept, so unreleased leases do not accumulate. */
    private static final int PRUNE_AT = 4096;

    private final Clock clock;
    private final Map<String, Holder> holders = new HashMap<>();
    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private long lastFence;
    private boolean closed;

    public InMemoryLeaseManager(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        Instant now = clock.instant();
        List<Lease> granted = new ArrayList<>();
        synchronized (this) {
            ensureOpen();
            if (holders.size() >= PRUNE_AT) {
                holders.values().removeIf(h -> !now.isBefore(h.expiresAt()));
            }
            for (String key : request.keys()) {
                if (granted.size() == request.maxGrants()) {
                    break;
                }
                Holder current = holders.get(key);
                if (current != null && now.isBefore(current.expiresAt())) {
                    continue;
                }
                long fence = ++lastFence;
                holders.put(key, new Holder(request.owner(), fence, now.plus(request.ttl())));
                granted.add(request.grant(key, fence, now));
            }
        }
        return granted;
    }

    @Override
    public List<Lease> renew(Collection<Lease> leases) {
        Instant now = clock.instant();
        List<Lease> held = new ArrayList<>();
        List<Lease> lost = new ArrayList<>();
        synchronized (this) {
            ensureOpen();
            for (Lease lease : leases) {
                Holder current = holders.get(lease.key());
                if (isHeldBy(current, lease, now)) {
                    holders.put(lease.key(), new Holder(lease.owner(), lease.fence(), now.plus(lease.ttl())));
                    held.add(lease.renewed(now));
                } else {
                    lost.add(lease);
                }
            }
        }
        if (!lost.isEmpty()) {
            LeaseLoss loss = new LeaseLoss(lost, LeaseLoss.Cause.RENEWAL_REFUSED,
                    "in-memory coordinator: lease expired or held by another grant");
            listeners.forEach(listener -> listener.leasesLost(loss));
        }
        return held;
    }

    @Override
    public List<Lease> release(Collection<Lease> leases) {
        Instant now = clock.instant();
        List<Lease> released = new ArrayList<>();
        synchronized (this) {
            ensureOpen();
            for (Lease lease : leases) {
                if (isHeldBy(holders.get(lease.key()), lease, now)) {
                    holders.remove(lease.key());
                    released.add(lease);
                }
            }
        }
        return released;
    }

    private static boolean isHeldBy(Holder current, Lease lease, Instant now) {
        return current != null
                && current.fence() == lease.fence()
                && current.owner().equals(lease.owner())
                && now.isBefore(current.expiresAt());
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public synchronized boolean raiseFenceFloor(long floor) {
        if (floor > lastFence) {
            lastFence = floor;
        }
        return true;
    }

    /**
     * Simulates a coordinator that lost its state (a restart without persistence): every lease is
     * forgotten and the fence counter goes back to {@code counter}. Test use only.
     */
    public synchronized void loseFenceCounter(long counter) {
        holders.clear();
        lastFence = counter;
    }

    /** The number of unexpired leases, for tests and metrics. */
    public synchronized int heldCount() {
        Instant now = clock.instant();
        return (int) holders.values().stream().filter(h -> now.isBefore(h.expiresAt())).count();
    }

    @Override
    public String describe() {
        return "in-memory lease manager";
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("InMemoryLeaseManager is closed");
        }
    }
}
