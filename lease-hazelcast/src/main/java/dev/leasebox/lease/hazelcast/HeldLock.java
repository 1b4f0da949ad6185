package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;
import dev.leasebox.lease.Lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A FencedLock this manager holds, and the leases granted under it: one for a key with a lock of
 * its own, up to a block of rows for a row lock slot. Every lease of it carries the lock's fence.
 * The lock is unlocked when its last lease lapses, and when its last lease is released, unless it is
 * a row lock slot that the manager lets linger: then it stays held, idle, for the linger, and a
 * request for rows of it that were never granted under its fence is granted them without a round
 * trip (docs/architecture.md §23). Confined to its owner thread.
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
    /** Every key ever granted under this fence: a key is never granted twice under one fence. */
    private final Set<String> granted = new HashSet<>();
    /** The send instant of the last call that found the lock held with this fence (its tryLock or a getFence). */
    private Instant confirmedAt;
    /** Since when the lock has held no lease; null while it holds one. */
    private Instant idleSince;

    HeldLock(String lockName, FencedLock lock, long fence, Instant confirmedAt) {
        this.lockName = lockName;
        this.lock = lock;
        this.fence = fence;
        this.confirmedAt = confirmedAt;
    }

    /**
     * When a call sent at {@code sent} found the lock still held under this fence: a lease granted
     * from it now may last until {@code confirmedAt + ttl}, as one granted by that call.
     */
    void confirmed(Instant sent) {
        if (sent.isAfter(confirmedAt)) {
            confirmedAt = sent;
        }
    }

    Instant confirmedAt() {
        return confirmedAt;
    }

    /** Whether {@code key} was granted under this fence before (released or not): it may not be granted again under it. */
    boolean grantedBefore(String key) {
        return granted.contains(key);
    }

    /** Marks the lock idle from {@code now}, once its last lease was released. */
    void idle(Instant now) {
        idleSince = now;
    }

    /** Since when the lock holds no lease, if it is idle. */
    Optional<Instant> idleSince() {
        return Optional.ofNullable(idleSince);
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
        granted.add(lease.key());
        idleSince = null;
    }

    /** Whether {@code lease} is this lock's grant of its key and has not lapsed at {@code now}. */
    boolean holds(Lease lease, Instant now) {
        HeldLease held = leases.get(lease.key());
        return held != null && held.lease().sameGrant(lease) && !held.expired(now);
    }

    /** Moves the deadline of a lease {@link #holds} confirmed. */
    void extend(Lease lease, Instant expiresAt) {
        HeldLease held = leases.get(lease.key());
        leases.put(lease.key(), new HeldLease(held.lease(), expiresAt));
    }

    /** Drops {@code key}'s lease. */
    void remove(String key) {
        leases.remove(key);
    }

    /**
     * Takes back a lease that was never handed out (granted beyond a request's limit): as if it had
     * not been granted, so the key may still be granted under this fence.
     */
    void withdraw(String key) {
        leases.remove(key);
        granted.remove(key);
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
