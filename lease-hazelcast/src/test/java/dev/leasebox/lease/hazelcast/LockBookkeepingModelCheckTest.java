package dev.leasebox.lease.hazelcast;

import dev.leasebox.lease.spi.LeaseLossListeners;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLoss;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.MutableClock;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Hazelcast manager's lock bookkeeping (the owner-thread steps of {@link LockAcquisition},
 * {@link LockRenewal} and {@link LockRelease}, and the expiry timer of {@link LeaseDeadlines}) under the
 * interleavings Lincheck's model checker explores, over FencedLocks in memory ({@link ModelCpLocks}) whose
 * {@code tryLock} can take effect on the CP group and then fail as a lost reply. Steps of the one owner
 * thread run one at a time, as its executor runs them; the expiry timer runs beside them.
 *
 * <p>Scenario: the claim path acquires a key whose {@code tryLock} reply is lost, acquires it again, renews
 * and releases what it was granted; meanwhile a ttl passes, the expiry timer reports what lapsed, and the
 * owner thread's reaper runs once, between any two of the claim path's steps. Properties, at the end: no
 * lock that took effect is forgotten (a lock the CP group says the owner thread holds is tracked as held
 * under its fence, or as leaked with as many unlocks owed as its hold count); nothing is granted under a
 * re-entered lock (hold count above one); no fence is granted twice.
 *
 * <p>Finds the unknown {@code tryLock} outcome of decision 0035 on the code before that fix: the lock was
 * recorded neither held nor leaked, the next acquire re-entered it (hold count 2) and was granted under the
 * lost call's fence, and after the release the lock stayed held by the owner thread with nothing tracking it.
 */
class LockBookkeepingModelCheckTest {

    /** Interleavings explored per test; {@code -Dmodelcheck.invocations=N} explores more (or fewer). */
    private static final int INVOCATIONS = Integer.getInteger("modelcheck.invocations", 50);
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final String KEY = "row-group-1";
    /** Parsed outside the checker: parsing one is thousands of steps it would explore. */
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final LockNames NAMES = new LockNames(HazelcastLeaseConfig.existingInstance().build());
    private static final String LOCK = NAMES.of(KEY);

    private static Level logLevel;

    /** One manager's owner thread, expiry timer and listeners over the model CP group, rebuilt for every interleaving. */
    private static final class Manager {
        final MutableClock clock = new MutableClock(START);
        final ModelCpLocks locks = new ModelCpLocks();
        final List<LeaseLoss> losses = new CopyOnWriteArrayList<>();
        final LeaseLossListeners listeners = LeaseLossListeners.onCallingThread("model CP group", org.slf4j.helpers.NOPLogger.NOP_LOGGER);
        final LeaseDeadlines deadlines = new LeaseDeadlines(clock, listeners, "model CP group");
        final OwnerThreads owners = new OwnerThreads(1, 8, Duration.ofSeconds(5), "model CP group");
        final OwnerThread owner = owners.first();
        final LockRelease release = new LockRelease(owners, NAMES, deadlines, clock, "model CP group");
        final LockAcquisition acquisition = new LockAcquisition(locks::proxy, owners, NAMES, release, deadlines, clock,
                "model CP group");
        final LockRenewal renewal = new LockRenewal(owners, NAMES, release, deadlines, listeners, clock);
        final List<Lease> granted = new CopyOnWriteArrayList<>();

        Manager() {
            listeners.add(losses::add);
        }

        /** An acquire of {@link #KEY} on the owner thread: the lease granted, or null (refused, or outcome unknown). */
        Lease acquire() {
            synchronized (owner) {
                List<Lease> got;
                try {
                    got = acquisition.lockAll(owner, List.of(new LockAcquisition.Assignment(LOCK, List.of(KEY))),
                            new LeaseRequest(List.of(KEY), "worker", TTL), clock.instant());
                } catch (RuntimeException e) {
                    return null; // the caller hears a failure: nothing granted to it
                }
                granted.addAll(got);
                return got.isEmpty() ? null : got.get(0);
            }
        }

        void renew(Lease lease) {
            synchronized (owner) {
                renewal.renewOn(owner, List.of(lease), clock.instant());
            }
        }

        void release(Lease lease) {
            synchronized (owner) {
                release.releaseOn(owner, List.of(lease), false);
            }
        }

        /** The owner thread's reaper: unlocks what lapsed, retries the leaked unlocks that are due. */
        void reap() {
            synchronized (owner) {
                release.reapExpired(owner);
            }
        }

        /** A ttl passes: the expiry timer reports what lapsed, then the owner thread's reaper runs. */
        void ttlPasses() {
            clock.advance(TTL);
            deadlines.reportDue();
            reap();
        }

        void checkProperties() {
            List<String> broken = new ArrayList<>();
            locks.hold(LOCK).filter(h -> h.owner().equals(ModelCpLocks.MANAGER)).ifPresent(hold -> {
                HeldLock held = owner.held.get(LOCK);
                LeakedLock leaked = owner.leaked.get(LOCK);
                if (held == null && leaked == null) {
                    broken.add("forgotten: the CP group says the owner thread holds " + LOCK + " (hold count " + hold.count()
                            + ", fence " + hold.fence() + "), the manager tracks it neither as held nor as leaked");
                } else if (leaked == null && (held.fence() != hold.fence() || hold.count() > 1)) {
                    broken.add("the manager tracks " + LOCK + " as held under fence " + held.fence() + ", to be unlocked once, "
                            + "while the CP group holds it for the owner thread " + hold.count() + " time(s) under fence " + hold.fence());
                } else if (leaked != null && leaked.holds() < hold.count()) {
                    broken.add("the manager owes " + leaked.holds() + " unlock(s) of leaked " + LOCK + ", the CP group holds it "
                            + hold.count() + " time(s)");
                }
            });
            for (Lease lease : granted) {
                if (locks.reenteredUnder(lease.fence())) {
                    broken.add("granted " + lease.key() + " under fence " + lease.fence() + " by a tryLock that re-entered a lock "
                            + "the owner thread held already (hold count above one)");
                }
            }
            if (granted.stream().map(Lease::fence).distinct().count() < granted.size()) {
                broken.add("a fence was granted twice: " + granted);
            }
            if (!broken.isEmpty()) {
                throw new AssertionError(String.join("; ", broken));
            }
        }
    }

    /**
     * The acquisition logs at WARN, and the checker cannot schedule through the appender's I/O; and the checker
     * instruments the classes already loaded on its first run in a JVM, which a trivial run pays for first.
     */
    @BeforeAll
    static void quietAndInstrumentOnce() {
        Logger logs = (Logger) LoggerFactory.getLogger("dev.leasebox");
        logLevel = logs.getLevel();
        logs.setLevel(Level.OFF);
        try {
            Lincheck.runConcurrentTest(1, () -> inThreads(() -> { }, () -> { }));
        } catch (AssertionError e) {
            // only the instrumentation was wanted
        }
    }

    @AfterAll
    static void restoreLogging() {
        ((Logger) LoggerFactory.getLogger("dev.leasebox")).setLevel(logLevel);
    }

    @Test
    void aTryLockThatTookEffectAndTimedOutIsNeitherForgottenNorReentered() {
        modelCheck(() -> {
            Manager manager = new Manager();
            manager.locks.loseNextTryLockReply();
            inThreads(() -> {
                manager.acquire();
                Lease lease = manager.acquire();
                if (lease != null) {
                    manager.renew(lease);
                    manager.release(lease);
                }
            }, manager::ttlPasses);
            manager.checkProperties();
        });
    }

    /**
     * Runs {@code scenario} once outside the model checker, then for one interleaving under it, so that class
     * initialization, call-site linking and the checker's own instrumentation of the classes involved are not
     * timed as part of an explored interleaving (on a loaded machine the first one can outlast the checker's
     * hang detection); then the model checker explores it and decides. A property broken in the warm-up is
     * found again there, with its interleaving.
     */
    private static void modelCheck(Runnable scenario) {
        try {
            scenario.run();
            Lincheck.runConcurrentTest(1, scenario);
        } catch (AssertionError e) {
            // decided below
        }
        Lincheck.runConcurrentTest(INVOCATIONS, scenario);
    }

    private static void inThreads(Runnable first, Runnable second) {
        Thread one = new Thread(first);
        Thread two = new Thread(second);
        one.start();
        two.start();
        try {
            one.join();
            two.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
