package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.exception.LockOwnershipLostException;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * How a manager renews leases: one {@code getFence()} per lock, on its owner thread, whatever the
 * number of its leases renewed. The lock still held with its grant's fence renews them all; a lock
 * found lost loses every lease under it, those not in the call being reported at their own renewal.
 */
final class LockRenewal {

    private final OwnerThreads owners;
    private final LockNames names;
    private final LockRelease release;
    private final LeaseLossListeners listeners;
    private final Clock clock;

    LockRenewal(OwnerThreads owners, LockNames names, LockRelease release, LeaseLossListeners listeners, Clock clock) {
        this.owners = owners;
        this.names = names;
        this.release = release;
        this.listeners = listeners;
        this.clock = clock;
    }

    List<Lease> renew(Collection<Lease> leases) {
        Instant sent = clock.instant();
        // filled by several owner threads at once
        List<Lease> lost = new CopyOnWriteArrayList<>();
        List<Lease> sessionLost = new CopyOnWriteArrayList<>();
        List<Lease> renewed = owners.run("renew", leases, names::of, (owner, batch) -> renewOn(owner, batch, sent, lost, sessionLost));
        listeners.report(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "renewal found the lock expired, released or held by another grant");
        listeners.report(sessionLost, LeaseLoss.Cause.SESSION_EXPIRED, "the CP session of this instance expired and the cluster freed its locks");
        return renewed;
    }

    /** Renews {@code batch}, all hashed to {@code owner}; returns the renewed. Owner thread only. */
    List<Lease> renewOn(OwnerThread owner, List<Lease> batch, Instant sent, List<Lease> lost, List<Lease> sessionLost) {
        Map<String, List<Lease>> byLock = new LinkedHashMap<>();
        batch.forEach(lease -> byLock.computeIfAbsent(names.of(lease.key()), n -> new ArrayList<>()).add(lease));
        List<Lease> kept = new ArrayList<>();
        for (Map.Entry<String, List<Lease>> entry : byLock.entrySet()) {
            renewUnder(owner, entry.getKey(), entry.getValue(), sent, kept, lost, sessionLost);
        }
        return kept;
    }

    /**
     * Renews {@code leases}, all under lock {@code lockName}, into {@code kept}, or sorts them into
     * {@code lost} or {@code sessionLost}; a lock found lost stops being tracked. Owner thread only.
     */
    private void renewUnder(OwnerThread owner, String lockName, List<Lease> leases, Instant sent, List<Lease> kept,
                            List<Lease> lost, List<Lease> sessionLost) {
        HeldLock current = owner.held.get(lockName);
        if (current == null || release.expireDue(owner, current)) {
            lost.addAll(leases);
            return;
        }
        List<Lease> alive = new ArrayList<>();
        Instant now = clock.instant();
        for (Lease lease : leases) {
            (current.holds(lease, now) ? alive : lost).add(lease);
        }
        if (alive.isEmpty()) {
            return;
        }
        try {
            if (current.lock().getFence() == current.fence()) {
                for (Lease lease : alive) {
                    current.extend(lease, sent.plus(lease.ttl()));
                    kept.add(lease.renewed(sent));
                }
                return;
            }
            lost.addAll(alive);
        } catch (LockOwnershipLostException e) {
            sessionLost.addAll(alive);
        } catch (IllegalMonitorStateException e) {
            lost.addAll(alive);
        }
        owner.held.remove(current.lockName());
    }
}
