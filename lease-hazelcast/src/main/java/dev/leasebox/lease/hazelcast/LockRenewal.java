package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
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

/**
 * How a manager renews leases: one {@code getFence()} per lock, on its owner thread, whatever the
 * number of its leases renewed. The lock still held with its grant's fence renews them all; a lock
 * found lost loses every lease under it, those not in the call being reported at their own renewal.
 */
final class LockRenewal {

    private final OwnerThreads owners;
    private final LockNames names;
    private final LockRelease release;
    private final LeaseDeadlines deadlines;
    private final LeaseLossListeners listeners;
    private final Clock clock;

    LockRenewal(OwnerThreads owners, LockNames names, LockRelease release, LeaseDeadlines deadlines, LeaseLossListeners listeners,
                Clock clock) {
        this.owners = owners;
        this.names = names;
        this.release = release;
        this.deadlines = deadlines;
        this.listeners = listeners;
        this.clock = clock;
    }

    List<Lease> renew(Collection<Lease> leases) {
        Instant sent = clock.instant();
        return owners.run("renew", leases, names::of, (owner, batch) -> renewOn(owner, batch, sent));
    }

    /**
     * Renews {@code batch}, all hashed to {@code owner}, and returns the renewed. The losses it finds
     * are reported from here, on the owner thread, so that a renewal whose caller stopped waiting
     * still reports what it found. Owner thread only.
     */
    List<Lease> renewOn(OwnerThread owner, List<Lease> batch, Instant sent) {
        Map<String, List<Lease>> byLock = new LinkedHashMap<>();
        batch.forEach(lease -> byLock.computeIfAbsent(names.of(lease.key()), n -> new ArrayList<>()).add(lease));
        List<Lease> kept = new ArrayList<>();
        List<Lease> lost = new ArrayList<>();
        List<Lease> sessionLost = new ArrayList<>();
        for (Map.Entry<String, List<Lease>> entry : byLock.entrySet()) {
            renewUnder(owner, entry.getKey(), entry.getValue(), sent, kept, lost, sessionLost);
        }
        listeners.report(lost, LeaseLoss.Cause.RENEWAL_REFUSED, "renewal found the lock expired, released or held by another grant");
        listeners.report(sessionLost, LeaseLoss.Cause.SESSION_EXPIRED, "the CP session of this instance expired and the cluster freed its locks");
        return kept;
    }

    /**
     * Renews {@code leases}, all under lock {@code lockName}, into {@code kept}, or sorts them into
     * {@code lost} or {@code sessionLost}; a lock found lost stops being tracked. A lease whose lapse
     * the expiry timer reported while this ran is neither renewed nor reported again. Owner thread only.
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
                    Instant deadline = sent.plus(lease.ttl());
                    if (deadlines.extend(lease, deadline)) {
                        current.extend(lease, deadline);
                        kept.add(lease.renewed(sent));
                    } else {
                        current.remove(lease.key()); // lapsed meanwhile: the expiry timer reports it
                    }
                }
                if (current.isEmpty()) {
                    release.unlockOrKeep(owner, current);
                }
                return;
            }
            untrack(alive, lost);
        } catch (LockOwnershipLostException e) {
            untrack(alive, sessionLost);
        } catch (IllegalMonitorStateException e) {
            untrack(alive, lost);
        }
        owner.held.remove(current.lockName());
    }

    /** Adds to {@code into} each of {@code leases} whose lapse was not reported yet, and stops tracking it. */
    private void untrack(List<Lease> leases, List<Lease> into) {
        for (Lease lease : leases) {
            if (deadlines.untrack(lease)) {
                into.add(lease);
            }
        }
    }
}
