package dev.leasebox.claim.leased;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseManagerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Gives a {@link LeasedOutboxClaimStore}'s leases back to the manager: on the completing thread, or on one
 * thread of the store when it releases in the background. A release that fails leaves the lease to lapse
 * at its ttl.
 */
final class LeaseReleases implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeasedOutboxClaimStore.class);
    private static final int RELEASE_QUEUE = 64;
    private static final Duration RELEASE_DRAIN = Duration.ofSeconds(10);

    private final LeaseManager leases;
    /** Ids whose leases a background release has yet to give back. */
    private final Set<Long> releasing = ConcurrentHashMap.newKeySet();
    /** The background releaser, or null when releases are sent by the completing thread. */
    private final ThreadPoolExecutor releaser;

    LeaseReleases(LeaseManager leases, boolean inBackground) {
        this.leases = leases;
        this.releaser = inBackground ? backgroundReleaser() : null;
    }

    /** The ids whose leases are on their way back: asking for them again could only be refused. */
    Set<Long> pending() {
        return releasing;
    }

    /**
     * One thread and a short queue: when releases fall behind (the coordinator is slower than the
     * claims), the completing thread sends its release itself, which slows claiming down to the pace of
     * releasing instead of letting held keys pile up.
     */
    private static ThreadPoolExecutor backgroundReleaser() {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(RELEASE_QUEUE), runnable -> {
            Thread thread = new Thread(runnable, "leasebox-lease-release");
            thread.setDaemon(true);
            return thread;
        }, (task, pool) -> task.run());
    }

    /**
     * Releases completed claims' leases, on the background releaser when there is one. Until it has,
     * their rows are left out of this store's candidates: asking for a key this store still holds could
     * only be refused.
     */
    void afterCompletion(List<Lease> toRelease) {
        if (releaser == null || toRelease.isEmpty()) {
            quietly(toRelease);
            return;
        }
        List<Long> ids = toRelease.stream().map(lease -> LeasedOutboxClaimStore.entryIdOf(lease.key()).orElseThrow()).toList();
        releasing.addAll(ids);
        releaser.execute(() -> {
            try {
                quietly(toRelease);
            } finally {
                releasing.removeAll(ids);
            }
        });
    }

    /** A release that fails leaves the lease to expire: the completion already stands on the row. */
    void quietly(List<Lease> toRelease) {
        if (toRelease.isEmpty()) {
            return;
        }
        try {
            leases.release(toRelease);
        } catch (LeaseManagerException e) {
            log.warn("Could not release {} leases on {} (they will expire by themselves): {}",
                    toRelease.size(), leases.describe(), e.getMessage());
        }
    }

    /** Waits up to ten seconds for the background releases still pending; the rest lapse at their ttl. */
    @Override
    public void close() {
        if (releaser == null) {
            return;
        }
        releaser.shutdown();
        try {
            if (!releaser.awaitTermination(RELEASE_DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("{} lease releases still pending on {} after {}; those leases lapse at their ttl",
                        releasing.size(), leases.describe(), RELEASE_DRAIN);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
