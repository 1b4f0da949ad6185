package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;
import dev.leasebox.lease.Lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A FencedLock this manager holds and the lease granted under it: a lock per key, so one lease,
 * carrying the lock's fence. The lock is unlocked when its lease is released or lapses. Confined to
 * its owner thread.
 */
final class HeldLock {

    /** A lease of this lock and the instant the manager lets it lapse. */
    record HeldLease(Lease lease, Instant expiresAt) {
        boolean expired(Instant now) {
            return !now.isBefore(expiresAt);
        }
    }

    private final String lockName;
    private final FencedLock lock;
    private final long fence;
    /** By key. */
    private final Map<String, HeldLease> leases = new LinkedHashMap<>();

    HeldLock(String lockName, FencedLock lock, long fence) {
        this.lockName = lockName;
        this.lock = lock;
        this.fence = fence;
    }

    String lockName() {
        return lockName;
    }

    FencedLock lock() {
        return lock;
    }

    long fence() {
        return fence;
    }

    void add(Lease lease, Instant expiresAt) {
        leases.put(lease.key(), new HeldLease(lease, expiresAt));
    }

    /** Whether {@code lease} is this lock's grant of its key and has not lapsed at {@code now}. */
    boolean holds(Lease lease, Instant now) {
        HeldLease held = leases.get(lease.key());
        return held != null && held.lease().sameGrant(lease) && !held.expired(now);
    }

    /** Moves the deadline of a lease {@link #holds} confirmed; never earlier than it is. */
    void extend(Lease lease, Instant expiresAt) {
        HeldLease held = leases.get(lease.key());
        if (expiresAt.isAfter(held.expiresAt())) {
            leases.put(lease.key(), new HeldLease(held.lease(), expiresAt));
        }
    }

    /** Drops {@code key}'s lease. */
    void remove(String key) {
        leases.remove(key);
    }

    /** Drops and returns the leases lapsed at {@code now}. */
    List<Lease> removeExpired(Instant now) {
        List<Lease> lapsed = new ArrayList<>();
        leases.values().removeIf(held -> {
            if (held.expired(now)) {
                lapsed.add(held.lease());
                return true;
            }
            return false;
        });
        return lapsed;
    }

    boolean isEmpty() {
        return leases.isEmpty();
    }

    Collection<Lease> leases() {
        return leases.values().stream().map(HeldLease::lease).toList();
    }
}
