package dev.leasebox.claim.leased;

import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A real lease manager whose losses a test reports: at a moment of its choosing ({@link #reportLost}), or
 * from inside an acquire, after the coordinator granted and before the caller sees the grant
 * ({@link #onGrant}). A reported loss can also make the coordinator forget the lease, as a session expiry
 * deletes a ZooKeeper node: the key is then free for another worker.
 */
public final class LossInjectingLeaseManager extends ForwardingLeaseManager {

    private final List<LeaseLossListener> listeners = new CopyOnWriteArrayList<>();
    private final List<Lease> granted = new CopyOnWriteArrayList<>();
    private volatile Consumer<List<Lease>> onGrant = leases -> { };

    public LossInjectingLeaseManager(LeaseManager coordinator) {
        super(coordinator);
    }

    /** Runs {@code hook} inside every later acquire that granted something, before the grant is returned. */
    public LossInjectingLeaseManager onGrant(Consumer<List<Lease>> hook) {
        this.onGrant = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /** Every lease granted through this manager so far, in grant order. */
    public List<Lease> granted() {
        return List.copyOf(granted);
    }

    @Override
    public List<Lease> acquire(LeaseRequest request) {
        List<Lease> leases = delegate.acquire(request);
        granted.addAll(leases);
        if (!leases.isEmpty()) {
            onGrant.accept(leases);
        }
        return leases;
    }

    @Override
    public void addLeaseLossListener(LeaseLossListener listener) {
        listeners.add(listener);
        delegate.addLeaseLossListener(listener);
    }

    /**
     * Tells the listeners that {@code lease} is lost (a session expiry); when {@code coordinatorForgets},
     * the coordinator first drops it, so that its key can be granted to another owner.
     */
    public void reportLost(Lease lease, boolean coordinatorForgets) {
        if (coordinatorForgets) {
            delegate.release(List.of(lease));
        }
        LeaseLoss loss = new LeaseLoss(List.of(lease), LeaseLoss.Cause.SESSION_EXPIRED,
                "test coordinator: session expired while " + lease.key() + " was held under fence " + lease.fence());
        listeners.forEach(l -> l.leasesLost(loss));
    }

    @Override
    public String describe() {
        return "loss-injecting view of " + delegate.describe();
    }
}
