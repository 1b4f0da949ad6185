package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;
import dev.leasebox.lease.Lease;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * One thread that owns the FencedLocks of the keys hashed to it. FencedLock ownership is the pair
 * (CP session, thread): a lock taken here can only be renewed, checked and unlocked here, so every
 * operation on a key runs on this thread, and {@link #held} is touched by this thread only.
 */
final class OwnerThread {

    /** A lock this manager holds: its name, the grant, its proxy and the instant the manager unlocks it. */
    record Held(String lockName, Lease lease, FencedLock lock, Instant expiresAt) {
        boolean expired(Instant now) {
            return !now.isBefore(expiresAt);
        }
    }

    private final ScheduledExecutorService executor;
    /** By lock name; confined to {@link #executor}'s thread. */
    final Map<String, Held> held = new HashMap<>();

    OwnerThread(String name) {
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
        this.executor = Executors.newSingleThreadScheduledExecutor(factory);
    }

    <T> Future<T> submit(Callable<T> task) {
        return executor.submit(task);
    }

    void every(java.time.Duration interval, Runnable task) {
        executor.scheduleWithFixedDelay(task, interval.toMillis(), interval.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    ScheduledExecutorService executor() {
        return executor;
    }
}
