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
import java.util.concurrent.locks.LockSupport;

/**
 * Threads with a manager each contend for a few keys under leases short enough that holders overrun
 * them: a holder works for a random time up to {@code longestHold} (past the ttl about half the time),
 * sometimes renewing midway, so that other managers take keys over while their previous holders still
 * work inside them. The property: at no moment do two holders of one key both hold a lease that is valid
 * by its own local deadline — a grant in hand while the previous holder's local deadline has not passed is
 * a violation — and fences strictly grow per key. {@code clock} is the one the managers' deadlines come
 * from (all managers of one JVM share the monotonic clock), so the comparison is exact.
 */
final class RacingLeaseFuzz {

    /** What a run observed: grants, grants that took a key over from a holder that had overrun it, violations. */
    record Result(int grants, int takeovers, List<String> violations) {
    }

    private final List<String> keys;
    private final Duration ttl;
    private final Duration longestHold;
    private final java.time.Clock clock;
    /** Per key, the lease of the holder currently working inside it. */
    private final Map<String, Lease> registers = new ConcurrentHashMap<>();
    private final Map<String, Long> lastFence = new ConcurrentHashMap<>();
    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicInteger grants = new AtomicInteger();
    private final AtomicInteger takeovers = new AtomicInteger();

    RacingLeaseFuzz(List<String> keys, Duration ttl, Duration longestHold, java.time.Clock clock) {
        this.clock = clock;
        this.keys = List.copyOf(keys);
        this.ttl = ttl;
        this.longestHold = longestHold;
    }

    Result run(List<LeaseManager> managers, List<String> owners, int rounds, Duration timeout) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(managers.size());
        try {
            List<Future<?>> workers = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < managers.size(); i++) {
                LeaseManager manager = managers.get(i);
                String owner = owners.get(i);
                workers.add(pool.submit(() -> contend(manager, owner, rounds, deadline)));
            }
            for (Future<?> worker : workers) {
                worker.get(Math.max(1, deadline - System.nanoTime()) + TimeUnit.MINUTES.toNanos(1), TimeUnit.NANOSECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(grants.get(), takeovers.get(), List.copyOf(violations));
    }

    /** Until this thread has been granted {@code rounds} times, or the deadline passed. */
    private void contend(LeaseManager manager, String owner, int rounds, long deadline) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < rounds && System.nanoTime() < deadline; ) {
            List<String> wanted = new ArrayList<>(keys);
            Collections.shuffle(wanted, random);
            wanted = wanted.subList(0, 1 + random.nextInt(Math.min(2, wanted.size())));
            List<Lease> held = new ArrayList<>(manager.acquire(new LeaseRequest(wanted, owner, ttl)));
            if (held.isEmpty()) {
                // the work of a worker that found nothing: a short pause, then the next round
                LockSupport.parkNanos(ttl.toNanos() / 8);
                continue;
            }
            round++;
            held.forEach(this::enter);
            long holdNanos = random.nextLong(longestHold.toNanos() + 1);
            if (random.nextBoolean() && holdNanos > ttl.toNanos() / 2) {
                LockSupport.parkNanos(ttl.toNanos() / 3);
                holdNanos -= ttl.toNanos() / 3;
                List<Lease> renewed = manager.renew(held);
                for (Lease lease : renewed) {
                    registers.replace(lease.key(), registered(held, lease.key()), lease);
                }
                held = new ArrayList<>(renewed);
            }
            LockSupport.parkNanos(holdNanos);
            held.forEach(lease -> registers.remove(lease.key(), lease));
            if (!held.isEmpty()) {
                manager.release(held); // leases that lapsed meanwhile are simply not released
            }
        }
    }

    private static Lease registered(List<Lease> held, String key) {
        return held.stream().filter(l -> l.key().equals(key)).findFirst().orElseThrow();
    }

    private void enter(Lease lease) {
        grants.incrementAndGet();
        if (!keys.contains(lease.key())) {
            violations.add("granted a key that was not asked for: " + lease);
            return;
        }
        java.time.Instant inHand = clock.instant();
        Lease previous = registers.put(lease.key(), lease);
        if (previous != null) {
            if (previous.localDeadline().isAfter(inHand)) {
                violations.add("overlap on " + lease.key() + ": " + tag(lease) + " was in hand at " + inHand
                        + " while " + tag(previous) + " held it until " + previous.localDeadline());
            } else {
                takeovers.incrementAndGet();
            }
        }
        Long last = lastFence.put(lease.key(), lease.fence());
        if (last != null && lease.fence() <= last) {
            violations.add("fence did not grow on " + lease.key() + ": " + lease.fence() + " after " + last);
        }
    }

    private static String tag(Lease lease) {
        return lease.owner() + "#" + lease.fence();
    }
}
