package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A manager's fixed set of {@link OwnerThread}s. A lock name always hashes to the same thread, so the
 * thread that locked it is the one that checks and unlocks it; a batch is split by thread and
 * runs on all of them at once, each doing its keys' Raft round trips one after another.
 */
final class OwnerThreads {

    private static final Logger LOG = LoggerFactory.getLogger(OwnerThreads.class);

    /** A batch step run on one owner thread with the items hashed to it. */
    @FunctionalInterface
    interface Step<T> {
        List<Lease> run(OwnerThread owner, List<T> items);
    }

    private final List<OwnerThread> threads = new ArrayList<>();
    private final Duration timeout;
    private final String description;

    /** {@code count} threads, each keeping at most {@code proxiesPerThread} FencedLock proxies. */
    OwnerThreads(int count, int proxiesPerThread, Duration timeout, String description) {
        for (int i = 0; i < count; i++) {
            threads.add(new OwnerThread("leasebox-hazelcast-owner-" + i, proxiesPerThread));
        }
        this.timeout = timeout;
        this.description = description;
    }

    List<OwnerThread> all() {
        return threads;
    }

    OwnerThread first() {
        return threads.get(0);
    }

    OwnerThread of(String lockName) {
        return threads.get(Math.floorMod(lockName.hashCode(), threads.size()));
    }

    /**
     * Runs {@code step} on every owner thread that has items, waiting at most the operation timeout
     * in all. An acquire that failed on some threads returns what the others granted; any other
     * operation fails whole, naming the coordinator.
     */
    <T> List<Lease> run(String operation, Collection<T> items, Function<T, String> lockNameOf, Step<T> step) {
        if (items.isEmpty()) {
            return List.of();
        }
        Map<OwnerThread, List<T>> byOwner = new LinkedHashMap<>();
        for (T item : items) {
            byOwner.computeIfAbsent(of(lockNameOf.apply(item)), o -> new ArrayList<>()).add(item);
        }
        List<Future<List<Lease>>> futures = new ArrayList<>();
        byOwner.forEach((owner, batch) -> futures.add(owner.submit(() -> step.run(owner, batch))));
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Lease> results = new ArrayList<>();
        RuntimeException failure = null;
        for (Future<List<Lease>> future : futures) {
            try {
                results.addAll(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (ExecutionException e) {
                failure = failure != null ? failure
                        : new LeaseManagerException(operation + " failed on " + description + ": " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                failure = failure != null ? failure : new LeaseManagerException(operation + " got no answer from " + description
                        + " within " + timeout + "; " + lateAnswer(operation));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = new LeaseManagerException(operation + " interrupted on " + description, e);
            }
        }
        if (failure != null && (results.isEmpty() || !"acquire".equals(operation))) {
            throw failure;
        }
        if (failure != null) {
            LOG.warn("{}; returning the {} leases granted before it", failure.getMessage(), results.size());
        }
        return results;
    }

    /** What becomes of the work of an {@code operation} that finishes after its caller stopped waiting. */
    static String lateAnswer(String operation) {
        return switch (operation) {
            case "acquire" -> "locks granted late are unlocked at their ttl";
            case "release", "releaseAndDestroy" -> "an unlock that completes late still frees its lock; one that fails leaves the "
                    + "lock held, not granted again, until an unlock retried in the background frees it for every manager";
            case "renew" -> "leases not renewed lapse at their ttl; a loss the renewal finds when it runs is still reported";
            default -> "its locks are unlocked when their leases lapse";
        };
    }

    void shutdownNow() {
        threads.forEach(thread -> thread.executor().shutdownNow());
    }
}
