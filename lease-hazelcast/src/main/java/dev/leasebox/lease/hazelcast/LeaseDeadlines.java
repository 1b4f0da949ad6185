package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The local deadline of every lease a manager holds, readable from any thread, and the expiry timer
 * that reports the lapsed ones. The timer reads only these deadlines and the manager's clock, on a
 * thread of its own: no CP call can hold it up, so a lapse is reported when it is due even while every
 * owner thread waits on a cluster that lost its majority (those unlock the lock later, when they can).
 *
 * <p>Exactly one path reports a lapse: whichever removes the lease from here, the timer or an owner
 * thread finding it due. A lease removed here is never renewed again, so a lease reported lost is not
 * afterwards renewed by a renewal that raced the timer.
 */
final class LeaseDeadlines {

    /** The manager's logger: what operators already filter on. */
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastLeaseManager.class);

    private record Tracked(Lease lease, Instant deadline) {
    }

    private final Map<String, Tracked> byKey = new ConcurrentHashMap<>();
    private final Clock clock;
    private final LeaseLossListeners listeners;
    private final String description;
    private volatile ScheduledExecutorService timer;

    LeaseDeadlines(Clock clock, LeaseLossListeners listeners, String description) {
        this.clock = clock;
        this.listeners = listeners;
        this.description = description;
    }

    /** {@code lease} lapses at {@code deadline} unless renewed. */
    void track(Lease lease, Instant deadline) {
        byKey.put(lease.key(), new Tracked(lease, deadline));
    }

    /**
     * Moves the deadline of {@code lease} to {@code deadline}, never earlier than it is (of two renewals
     * in flight at once, the one sent earlier may be applied last); false when it is no longer tracked
     * (its lapse was reported, or is due now and will be): then it must not be renewed.
     */
    boolean extend(Lease lease, Instant deadline) {
        boolean[] moved = {false};
        Instant now = clock.instant();
        byKey.computeIfPresent(lease.key(), (key, tracked) -> {
            if (!tracked.lease().sameGrant(lease) || !now.isBefore(tracked.deadline())) {
                return tracked;
            }
            moved[0] = true;
            return deadline.isAfter(tracked.deadline()) ? new Tracked(tracked.lease(), deadline) : tracked;
        });
        return moved[0];
    }

    /** Stops tracking {@code lease}; true when it was tracked, so that no lapse of it was reported. */
    boolean untrack(Lease lease) {
        Tracked tracked = byKey.get(lease.key());
        return tracked != null && tracked.lease().sameGrant(lease) && byKey.remove(lease.key(), tracked);
    }

    /** Reports every lease whose deadline passed, once, and stops tracking it. */
    void reportDue() {
        Instant now = clock.instant();
        List<Lease> lapsed = new ArrayList<>();
        byKey.forEach((key, tracked) -> {
            if (!now.isBefore(tracked.deadline()) && byKey.remove(key, tracked)) {
                lapsed.add(tracked.lease());
            }
        });
        report(lapsed);
    }

    /** Reports {@code lapsed}, which the caller removed from here, as lapsed. */
    void report(List<Lease> lapsed) {
        listeners.report(lapsed, LeaseLoss.Cause.DEADLINE_PASSED, "not renewed within its ttl; " + description + " let it lapse");
    }

    /** Stops tracking every lease (at close). */
    void clear() {
        byKey.clear();
    }

    /** Starts the expiry timer, checking every {@code interval}. */
    void start(Duration interval) {
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "leasebox-hazelcast-expiry");
            thread.setDaemon(true);
            return thread;
        });
        started.scheduleWithFixedDelay(() -> {
            try {
                reportDue();
            } catch (RuntimeException e) {
                LOG.warn("the expiry timer of {} failed to report lapsed leases: {}; it tries again", description, e.toString());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        timer = started;
    }

    void stop() {
        ScheduledExecutorService running = timer;
        if (running != null) {
            running.shutdownNow();
        }
    }
}
