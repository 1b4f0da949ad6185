package dev.leasebox.lease.hazelcast;

import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.spi.exception.DistributedObjectDestroyedException;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * How a manager lets go of its locks: on release, when a lease's ttl passes (found on the way or by
 * each owner thread's reaper), when a round granted beyond a request's limit, and at close. A lock is
 * unlocked once no lease is left under it. An unlock that fails other than by finding the lock not
 * held may not have taken effect, so the lock is kept as leaked ({@link LeakedLock}), never granted
 * meanwhile, and unlocked again until it is free of its owner thread.
 */
final class LockRelease {

    /** The manager's logger: what operators already filter on. */
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);

    private final OwnerThreads owners;
    private final LockNames names;
    private final LeaseDeadlines deadlines;
    private final Clock clock;
    private final String description;

    LockRelease(OwnerThreads owners, LockNames names, LeaseDeadlines deadlines, Clock clock, String description) {
        this.owners = owners;
        this.names = names;
        this.deadlines = deadlines;
        this.clock = clock;
        this.description = description;
    }

    /**
     * Releases each lease still held: its lock is unlocked (one Raft round trip per lock, on its owner
     * thread) and, with {@code destroy}, destroyed.
     */
    List<Lease> release(Collection<Lease> leases, boolean destroy) {
        return owners.run(destroy ? "releaseAndDestroy" : "release", leases, names::of, (owner, batch) -> releaseOn(owner, batch, destroy));
    }

    /** Releases {@code batch}, all hashed to {@code owner}, and returns the released. Owner thread only. */
    List<Lease> releaseOn(OwnerThread owner, List<Lease> batch, boolean destroy) {
        List<Lease> released = new ArrayList<>();
        for (Lease lease : batch) {
            HeldLock current = owner.held.get(names.of(lease.key()));
            if (current == null || expireDue(owner, current) || !current.holds(lease, clock.instant())) {
                continue;
            }
            current.remove(lease.key());
            // a lease whose lapse the expiry timer reported meanwhile is not counted released
            boolean unreported = deadlines.untrack(lease);
            if (!current.isEmpty()) {
                if (unreported) {
                    released.add(lease);
                }
                continue;
            }
            if (!unlockOrKeep(owner, current) || !unreported) {
                continue;
            }
            released.add(lease);
            if (destroy) {
                owner.forget(current.lockName());
                current.lock().destroy();
            }
        }
        return released;
    }

    /**
     * Gives up leases a round granted beyond the request's limit, the last in request order: each
     * one's lock is unlocked (a round trip each, on its owner thread).
     */
    void trim(List<Lease> excess) {
        try {
            owners.run("trim", List.copyOf(excess), names::of, (owner, leases) -> {
                for (Lease lease : leases) {
                    HeldLock held = owner.held.get(names.of(lease.key()));
                    if (held == null) {
                        continue;
                    }
                    held.remove(lease.key());
                    deadlines.untrack(lease);
                    if (held.isEmpty()) {
                        unlockOrKeep(owner, held);
                    }
                }
                return List.of();
            });
        } catch (LeaseManagerException e) {
            LOG.warn("could not give up {} leases granted beyond a request's limit on {} ({}); they lapse at their ttl", excess.size(), description, e.getMessage());
        }
    }

    /**
     * Drops the leases of {@code held} whose ttl has passed, reporting those the expiry timer has not
     * reported yet, and unlocks it when none is left; true when it did (the lock is gone). Owner
     * thread only.
     */
    boolean expireDue(OwnerThread owner, HeldLock held) {
        List<Lease> lapsed = held.removeExpired(clock.instant());
        if (lapsed.isEmpty()) {
            return false;
        }
        lapsed.removeIf(lease -> !deadlines.untrack(lease));
        deadlines.report(lapsed);
        if (!held.isEmpty()) {
            return false;
        }
        unlockOrKeep(owner, held);
        return true;
    }

    /**
     * The reaper, run on each owner thread every reap interval: unlocks what lapsed, retries leaked
     * unlocks that are due. Reporting a lapse does not wait for it: the expiry timer does that.
     */
    void reapExpired(OwnerThread owner) {
        for (HeldLock held : List.copyOf(owner.held.values())) {
            try {
                expireDue(owner, held);
            } catch (RuntimeException e) {
                LOG.warn("reaping lock {} on {} failed: {}", held.lockName(), description, e.toString());
            }
        }
        Instant now = clock.instant();
        for (LeakedLock leaked : List.copyOf(owner.leaked.values())) {
            if (leaked.due(now)) {
                retryLeaked(owner, leaked);
            }
        }
    }

    /**
     * Unlocks {@code held}, which has no lease left, and stops tracking it; true when the lock is free
     * of this thread (unlocked, or found not held by it: the session ended, or it was destroyed).
     * When the unlock fails otherwise, it may not have taken effect: the lock is kept as leaked, never
     * granted again (a tryLock would re-enter it under this fence), and unlocked again in the
     * background. Owner thread only.
     */
    boolean unlockOrKeep(OwnerThread owner, HeldLock held) {
        owner.held.remove(held.lockName());
        try {
            held.lock().unlock();
            return true;
        } catch (IllegalMonitorStateException | DistributedObjectDestroyedException notHeld) {
            LOG.debug("{} on {} was no longer held at its unlock: {}", held.lockName(), description, notHeld.toString());
            return true;
        } catch (HazelcastInstanceNotActiveException shutDown) {
            LOG.warn("could not unlock {} on {}: the instance is shut down; the cluster frees the lock when its CP session ends",
                    held.lockName(), description);
            return true;
        } catch (RuntimeException e) {
            owner.leaked.put(held.lockName(), new LeakedLock(held.lockName(), held.lock(), held.fence(), 1, clock.instant()));
            LOG.warn("unlock of {} (fence {}) on {} failed: {}. The lock may still be held by this manager's CP session: it is not "
                    + "granted again, and its unlock is retried until it succeeds or the session ends; other managers get its keys "
                    + "only then (if the cluster stays unreachable, closing this manager's instance ends the session)",
                    held.lockName(), held.fence(), description, e.toString());
            return false;
        }
    }

    /** One more unlock of a leaked lock; it is dropped once free of this thread. Owner thread only. */
    void retryLeaked(OwnerThread owner, LeakedLock leaked) {
        try {
            while (true) {
                leaked.lock().unlock();
                if (leaked.unlocked()) {
                    break;
                }
            }
            LOG.info("unlocked {} on {}: its keys can be granted again", leaked.lockName(), description);
        } catch (IllegalMonitorStateException | DistributedObjectDestroyedException | HazelcastInstanceNotActiveException notHeld) {
            LOG.info("{} on {} is no longer held by this manager ({}): its keys can be granted again", leaked.lockName(), description, notHeld.toString());
        } catch (RuntimeException e) {
            leaked.failed(clock.instant());
            LOG.warn("unlock of {} on {} failed again ({} attempts): {}; retrying", leaked.lockName(), description, leaked.attempts(), e.toString());
            return;
        }
        owner.leaked.remove(leaked.lockName());
    }

    /**
     * At close: unlocks every held lock and tries each leaked one once more, on every owner thread,
     * waiting at most {@code timeout} for each; returns how many locks may still be held.
     */
    int unlockAll(Duration timeout) {
        List<Future<Integer>> unlocks = new ArrayList<>();
        for (OwnerThread owner : owners.all()) {
            unlocks.add(owner.submit(() -> {
                List<LeakedLock> earlier = List.copyOf(owner.leaked.values());
                List.copyOf(owner.held.values()).forEach(held -> unlockOrKeep(owner, held));
                earlier.forEach(leaked -> retryLeaked(owner, leaked));
                int left = owner.leaked.size();
                owner.leaked.clear();
                return left;
            }));
        }
        int left = 0;
        for (Future<Integer> unlock : unlocks) {
            try {
                left += unlock.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                left++;
                LOG.warn("leases of {} not all unlocked at close ({})", description, e.toString());
            }
        }
        return left;
    }
}
