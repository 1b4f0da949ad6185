package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.spi.exception.DistributedObjectDestroyedException;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * How a manager acquires keys: the request's locks are spread over the owner threads in rounds of at
 * most the keys still allowed, one {@code tryLock} per lock on its owner thread, and a lock that is
 * held here already, leaked, or answered with a fence handed out before grants nothing.
 */
final class LockAcquisition {

    /** The manager's logger: what operators already filter on. */
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);

    private final Function<String, FencedLock> fetch;
    private final OwnerThreads owners;
    private final LockNames names;
    private final LockRelease release;
    private final LeaseDeadlines deadlines;
    private final Clock clock;
    private final String description;
    /**
     * The highest fence a {@code tryLock} of this manager returned. A new acquisition commits at a Raft
     * index above every fence returned before it was sent, so a {@code tryLock} answering with one no
     * higher re-entered a lock this thread held already.
     */
    private final AtomicLong highestFence = new AtomicLong();

    /** A fault injected by tests right after a tryLock took effect, before its fence is looked at: a reply lost. */
    private volatile TryLockFault afterTryLock = (name, fence) -> { };

    /** {@code fetch}: the FencedLock proxy of a lock name (a round trip to the cluster). */
    LockAcquisition(Function<String, FencedLock> fetch, OwnerThreads owners, LockNames names, LockRelease release,
                    LeaseDeadlines deadlines, Clock clock, String description) {
        this.fetch = fetch;
        this.owners = owners;
        this.names = names;
        this.release = release;
        this.deadlines = deadlines;
        this.clock = clock;
        this.description = description;
    }

    /**
     * Grants at most {@code request.maxGrants()} of the request's keys, in request order; a round that
     * fails after earlier rounds granted returns what those granted.
     */
    List<Lease> acquire(LeaseRequest request) {
        Instant sent = clock.instant();
        Map<String, List<String>> byLock = new LinkedHashMap<>();
        request.keys().forEach(key -> byLock.computeIfAbsent(names.of(key), n -> new ArrayList<>()).add(key));
        Iterator<Map.Entry<String, List<String>>> next = byLock.entrySet().iterator();
        Map<String, Integer> order = new HashMap<>();
        request.keys().forEach(key -> order.put(key, order.size()));
        List<Lease> granted = new ArrayList<>();
        int remaining = request.maxGrants();
        while (remaining > 0 && next.hasNext()) {
            List<Assignment> round = new ArrayList<>();
            for (int assigned = 0; assigned < remaining && next.hasNext(); ) {
                Map.Entry<String, List<String>> group = next.next();
                round.add(new Assignment(group.getKey(), group.getValue()));
                assigned += group.getValue().size();
            }
            List<Lease> got;
            try {
                got = new ArrayList<>(owners.run("acquire", round, Assignment::lockName, (owner, assignments) -> lockAll(owner, assignments, request, sent)));
            } catch (LeaseManagerException e) {
                if (granted.isEmpty()) {
                    throw e;
                }
                LOG.warn("{}; returning the {} leases granted before it", e.getMessage(), granted.size());
                return granted;
            }
            if (got.size() > remaining) {
                got.sort(Comparator.comparingInt(lease -> order.get(lease.key())));
                release.trim(got.subList(remaining, got.size()));
                got = got.subList(0, remaining);
            }
            granted.addAll(got);
            remaining -= got.size();
        }
        return granted;
    }

    /** A fault point after a tryLock returned: throwing from it makes the call's outcome unknown to this manager. */
    @FunctionalInterface
    interface TryLockFault {
        void after(String lockName, long fence);
    }

    /** Injects {@code fault} after every tryLock (for tests). */
    void afterTryLock(TryLockFault fault) {
        this.afterTryLock = fault;
    }

    /** The keys of one request assigned to one lock in one round: all of them are granted with it, or none. */
    record Assignment(String lockName, List<String> keys) {
    }

    /**
     * One {@code tryLock} per assignment, on its owner thread, except for a lock this manager holds
     * already (for a lease not lapsed): that one grants nothing, with no round trip.
     */
    List<Lease> lockAll(OwnerThread owner, List<Assignment> assignments, LeaseRequest request, Instant sent) {
        List<Lease> granted = new ArrayList<>();
        for (Assignment assignment : assignments) {
            String name = assignment.lockName();
            if (owner.leaked.containsKey(name)) {
                continue; // a tryLock would re-enter it under an earlier grant's fence
            }
            HeldLock current = owner.held.get(name);
            if (current != null && !release.expireDue(owner, current)) {
                continue;
            }
            if (owner.leaked.containsKey(name)) {
                continue;
            }
            FencedLock lock = null;
            long fence;
            try {
                lock = owner.lock(name, fetch);
                long highestBefore = highestFence.get();
                fence = tryLock(lock);
                afterTryLock.after(name, fence);
                if (fence != FencedLock.INVALID_FENCE && fence <= highestBefore) {
                    fence = refuse(owner, name, lock, fence, lockCount(lock), highestBefore);
                } else if (fence != FencedLock.INVALID_FENCE && owner.unsure.remove(name)) {
                    int count = lockCount(lock);
                    if (count > 1) {
                        fence = refuse(owner, name, lock, fence, count, highestBefore);
                    }
                }
                if (fence != FencedLock.INVALID_FENCE) {
                    highestFence.accumulateAndGet(fence, Math::max);
                }
            } catch (RuntimeException e) {
                owner.forget(name);
                if (lock != null) {
                    keepPossiblyAcquired(owner, name, lock, e);
                }
                if (granted.isEmpty()) {
                    throw e;
                }
                LOG.warn("tryLock of {} failed on {} ({}); returning the {} leases granted before it", name, description, e, granted.size());
                return granted;
            }
            if (fence == FencedLock.INVALID_FENCE) {
                continue;
            }
            HeldLock held = new HeldLock(name, lock, fence);
            for (String key : assignment.keys()) {
                Lease lease = request.grant(key, fence, sent);
                held.add(lease, sent.plus(request.ttl()));
                deadlines.track(lease, sent.plus(request.ttl()));
                granted.add(lease);
            }
            owner.held.put(name, held);
        }
        return granted;
    }

    /**
     * A call on {@code lock} after its {@code tryLock} was sent failed ({@code failure}): whether the
     * tryLock took effect is unknown (a reply lost past the invocation timeout, a heartbeat timeout, a
     * leader change), so the lock is treated as held by this thread: kept as leaked, never granted
     * meanwhile, and unlocked in the background until the cluster answers that this thread no longer
     * holds it. The next grant of its name is checked for a re-entry. Owner thread only.
     */
    private void keepPossiblyAcquired(OwnerThread owner, String name, FencedLock lock, RuntimeException failure) {
        owner.unsure.add(name);
        owner.leaked.computeIfAbsent(name, n -> new LeakedLock(n, lock, -1, 1, clock.instant()));
        LOG.warn("tryLock of {} on {} failed and may have taken effect ({}): the lock is treated as held by this manager, not granted, "
                + "and unlocked in the background until the cluster says this manager no longer holds it; other managers get it then",
                name, description, failure.toString());
    }

    /** The lock's hold count; 2 when it cannot be read, so that an unknown count is never taken for a first acquisition. */
    private static int lockCount(FencedLock lock) {
        try {
            return lock.getLockCount();
        } catch (RuntimeException e) {
            return 2;
        }
    }

    /**
     * A {@code tryLock} answered {@code fence}, no higher than a fence this manager was handed before
     * it was sent, or re-entered a lock whose earlier acquisition had an unknown outcome (its hold
     * count {@code count} above one): a new acquisition would have a higher fence and count one, so
     * this thread held the lock already and re-entered it, or the CP Subsystem was reset and its Raft
     * indexes start again. Either way the fence may have been handed out before: the acquisition is
     * undone and nothing is granted. A re-entered lock is kept as leaked, to be unlocked until free.
     * Returns INVALID_FENCE. Owner thread only.
     */
    private long refuse(OwnerThread owner, String name, FencedLock lock, long fence, int count, long highestBefore) {
        if (count > 1) {
            LOG.warn("tryLock of {} on {} re-entered a lock this manager still held (lock count {}, fence {}, an earlier grant's): "
                    + "not granted; it is unlocked in the background until free", name, description, count, fence);
        } else {
            LOG.warn("tryLock of {} on {} returned fence {}, not above fence {} handed out before: the CP Subsystem was reset and "
                    + "its fences repeat; not granted (restart the workers of this cluster, and check the store's fence high-water marks)",
                    name, description, fence, highestBefore);
        }
        LeakedLock leaked = new LeakedLock(name, lock, fence, Math.max(count, 1), clock.instant());
        leaked.retryNow(clock.instant());
        owner.leaked.put(name, leaked);
        release.retryLeaked(owner, leaked);
        return FencedLock.INVALID_FENCE;
    }

    /** One tryLock on the calling owner thread: the fence, or INVALID_FENCE when another holds the key or its lock was destroyed. */
    private static long tryLock(FencedLock lock) {
        try {
            return lock.tryLockAndGetFence();
        } catch (DistributedObjectDestroyedException destroyed) {
            return FencedLock.INVALID_FENCE;
        }
    }
}
