package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * One thread that owns the FencedLocks of the keys hashed to it. FencedLock ownership is the pair
 * (CP session, thread): a lock taken here can only be renewed, checked and unlocked here, so every
 * operation on a key runs on this thread, and {@link #held} and the proxy cache are touched by this
 * thread only.
 *
 * <p>Fetching a FencedLock proxy is not free: every {@code CPSubsystem.getLock(name)} asks a member
 * for the lock's CP group, which that member answers with a linearizable query of the METADATA CP
 * group (Hazelcast's {@code CPSubsystem} Javadoc: callers should cache the returned proxy). So the
 * proxies of the names this thread locks are kept, least recently used first out, and a row's
 * acquire costs only its {@code tryLock}.
 */
final class OwnerThread {

    private final ScheduledExecutorService executor;
    /** The locks this manager holds on this thread, by lock name; confined to {@link #executor}'s thread. */
    final Map<String, HeldLock> held = new HashMap<>();
    /**
     * The locks this thread may still hold with no lease left (an unlock failed), by lock name, until
     * an unlock frees them; never granted meanwhile. Confined to {@link #executor}'s thread.
     */
    final Map<String, LeakedLock> leaked = new HashMap<>();
    /**
     * Lock names whose last {@code tryLock} on this thread failed with an unknown outcome: the next
     * grant of one is checked with the lock's hold count, so a re-entry is never taken for a new
     * acquisition. Confined to {@link #executor}'s thread.
     */
    final Set<String> unsure = new HashSet<>();
    /** FencedLock proxies by lock name, in access order; confined to {@link #executor}'s thread. */
    private final Map<String, FencedLock> proxies;

    /** A thread keeping at most {@code proxyCapacity} FencedLock proxies. */
    OwnerThread(String name, int proxyCapacity) {
        if (proxyCapacity < 1) {
            throw new IllegalArgumentException("proxyCapacity must be positive, was " + proxyCapacity);
        }
        this.proxies = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, FencedLock> eldest) {
                return size() > proxyCapacity;
            }
        };
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
        this.executor = Executors.newSingleThreadScheduledExecutor(factory);
    }

    /**
     * The proxy of lock {@code lockName}: the one kept from an earlier call, or a new one from
     * {@code fetch} (a round trip to the cluster), kept from now on. Owner thread only.
     */
    FencedLock lock(String lockName, Function<String, FencedLock> fetch) {
        FencedLock proxy = proxies.get(lockName);
        if (proxy == null) {
            proxy = fetch.apply(lockName);
            proxies.put(lockName, proxy);
        }
        return proxy;
    }

    /** Drops the kept proxy of {@code lockName}, e.g. after a call on it failed or it was destroyed. Owner thread only. */
    void forget(String lockName) {
        proxies.remove(lockName);
    }

    /** How many proxies this thread keeps now (for tests). Owner thread only. */
    int proxiesKept() {
        return proxies.size();
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
