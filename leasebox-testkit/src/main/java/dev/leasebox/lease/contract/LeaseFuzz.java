package dev.leasebox.lease.contract;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads with a manager each contend for a few keys. While holding a key, a thread claims a shared
 * per-key register (which must be empty) and checks that its fence is above the last fence seen for
 * that key; it clears the register before releasing. Any overlap or non-growing fence is recorded as
 * a violation. Work inside a lease is a few memory operations, far shorter than the ttl.
 */
final class LeaseFuzz {

    /** What a fuzz run observed. */
    record Result(int grants, List<String> violations) {
    }

    private final List<String> keys;
    private final Duration ttl;
    /** Per key, the holder currently inside it ("owner#fence"); absent when nobody is. */
    private final Map<String, String> registers = new ConcurrentHashMap<>();
    private final Map<String, Long> lastFence = new ConcurrentHashMap<>();
    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicInteger grants = new AtomicInteger();

    LeaseFuzz(List<String> keys, Duration ttl) {
        this.keys = List.copyOf(keys);
        this.ttl = ttl;
    }

    Result run(List<LeaseManager> managers, List<String> owners, int rounds, Duration timeout) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(managers.size());
        try {
            List<Future<?>> workers = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            long enough = System.nanoTime() + timeout.toNanos() / 4;
            for (int i = 0; i < managers.size(); i++) {
                LeaseManager manager = managers.get(i);
                String owner = owners.get(i);
                workers.add(pool.submit(() -> contend(manager, owner, rounds, enough)));
            }
            for (Future<?> worker : workers) {
                worker.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(grants.get(), List.copyOf(violations));
    }

    /**
     * {@code rounds} attempts, then more until this thread has been granted twice or {@code enough} (a nano
     * time) has passed: a backend that hands a released key back to its last holder first (Hazelcast's
     * lingering row slots) still lets every thread in.
     */
    private void contend(LeaseManager manager, String owner, int rounds, long enough) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int mine = 0;
        for (int round = 0; round < rounds || (mine < 2 && System.nanoTime() < enough); round++) {
            List<String> wanted = new ArrayList<>(keys);
            Collections.shuffle(wanted, random);
            wanted = wanted.subList(0, 1 + random.nextInt(wanted.size()));
            LeaseRequest request = new LeaseRequest(wanted, owner, ttl);
            if (random.nextBoolean()) {
                request = request.limitedTo(1 + random.nextInt(wanted.size())); // over-asking, as the claim path does
            }
            List<Lease> held = manager.acquire(request);
            mine += held.isEmpty() ? 0 : 1;
            if (held.isEmpty() && round >= rounds) {
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            if (held.size() > request.maxGrants()) {
                violations.add(owner + " was granted " + held.size() + " leases on a request limited to " + request.maxGrants());
            }
            for (Lease lease : held) {
                enter(lease);
            }
            for (Lease lease : held) {
                exit(lease);
            }
            if (!held.isEmpty()) {
                List<Lease> released = manager.release(held);
                if (released.size() != held.size()) {
                    violations.add(owner + " released " + released.size() + " of " + held.size()
                            + " leases it held well within their ttl: " + held);
                }
            }
        }
    }

    private void enter(Lease lease) {
        grants.incrementAndGet();
        if (!keys.contains(lease.key())) {
            violations.add("granted a key that was not asked for: " + lease);
            return;
        }
        String tag = tag(lease);
        String inside = registers.putIfAbsent(lease.key(), tag);
        if (inside != null) {
            violations.add("overlap on " + lease.key() + ": " + tag + " granted while " + inside + " held it");
        }
        Long previous = lastFence.put(lease.key(), lease.fence());
        if (previous != null && lease.fence() <= previous) {
            violations.add("fence did not grow on " + lease.key() + ": " + lease.fence() + " after " + previous);
        }
    }

    private void exit(Lease lease) {
        if (!registers.remove(lease.key(), tag(lease))) {
            violations.add("register of " + lease.key() + " was not " + tag(lease) + " on leaving, but " + registers.get(lease.key()));
        }
    }

    private static String tag(Lease lease) {
        return lease.owner() + "#" + lease.fence();
    }
}
