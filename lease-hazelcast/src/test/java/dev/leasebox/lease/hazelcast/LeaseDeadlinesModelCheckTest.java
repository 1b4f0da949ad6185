package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
import dev.leasebox.lease.Lease;
import dev.leasebox.testkit.MutableClock;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Two renewals of one lease applied at once, in either order: the lease keeps the later deadline, which
 * one of their callers was promised. On the code that let the last applied renewal win, the checker finds
 * the order in which the earlier deadline lands last and the expiry timer reports a live lease lapsed.
 */
class LeaseDeadlinesModelCheckTest {

    private static final int INVOCATIONS = Integer.getInteger("modelcheck.invocations", 50);
    private static final Duration TTL = Duration.ofSeconds(10);

    @Test
    void renewalsAppliedInEitherOrderKeepTheLaterDeadline() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            MutableClock clock = MutableClock.startingAt2026();
            Instant start = clock.instant();
            List<Lease> lapsed = new CopyOnWriteArrayList<>();
            LeaseLossListeners listeners = LeaseLossListeners.onCallingThread("model", org.slf4j.helpers.NOPLogger.NOP_LOGGER);
            listeners.add(loss -> lapsed.addAll(loss.leases()));
            LeaseDeadlines deadlines = new LeaseDeadlines(clock, listeners, "model");
            Lease lease = new Lease("row-1", "w1", 1, start, TTL, start.plus(TTL));
            deadlines.track(lease, start.plus(TTL));

            Thread later = new Thread(() -> deadlines.extend(lease, start.plusSeconds(5).plus(TTL)));
            Thread earlier = new Thread(() -> deadlines.extend(lease, start.plusSeconds(1).plus(TTL)));
            later.start();
            earlier.start();
            join(later);
            join(earlier);

            clock.set(start.plusSeconds(5).plus(TTL).minusMillis(1));
            deadlines.reportDue();
            if (!lapsed.isEmpty()) {
                throw new AssertionError("reported lapsed 1 ms before the later renewal's deadline: " + lapsed);
            }
        });
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
