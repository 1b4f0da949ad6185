package dev.leasebox.drain;

import dev.leasebox.wakeup.WakeUp;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hints a drain's idle loops wait for. A hint wakes one waiting loop; given while no loop waits, it
 * is kept (one of each kind: hints coalesce) and the next loop to finish a cycle takes it and runs
 * again at once, so an entry committed while a cycle ran is looked for right after it. Under load,
 * when every loop finds work and none waits, hints therefore cost no statement.
 */
final class WakeSignal {

    /** Why {@link #await} returned. */
    enum Outcome { TIMED_OUT, COMMITTED, COMMIT_PENDING, STOPPED }

    // A lock and a condition, not a monitor: a timed wait parks (LockSupport.parkNanos), which the drain's
    // Lincheck model checks explore as a wait that may time out; Object.wait(timeout) they took for one
    // that never does.
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition hinted = lock.newCondition();
    private boolean committed;  // guarded by lock
    private boolean pending;    // guarded by lock
    private boolean stopped;    // guarded by lock
    private int waiting;        // guarded by lock

    void wake(WakeUp hint) {
        lock.lock();
        try {
            if (hint == WakeUp.COMMITTED) {
                committed = true;
            } else {
                pending = true;
            }
            hinted.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes one waiting loop, if one waits: a loop that took a full batch shares the backlog. */
    void handOff() {
        lock.lock();
        try {
            if (waiting > 0) {
                committed = true;
                hinted.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every wait, now and later, returns {@link Outcome#STOPPED}. */
    void stop() {
        lock.lock();
        try {
            stopped = true;
            hinted.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a hint, at most {@code timeout} (empty: however long). A committed hint is taken before a
     * pending one. An interrupted wait returns {@link Outcome#STOPPED}, the interrupt kept.
     */
    Outcome await(Optional<Duration> timeout) {
        long left = timeout.map(Duration::toNanos).orElse(0L);
        lock.lock();
        waiting++;
        try {
            while (true) {
                if (stopped) {
                    return Outcome.STOPPED;
                }
                if (committed) {
                    committed = false;
                    return Outcome.COMMITTED;
                }
                if (pending) {
                    pending = false;
                    return Outcome.COMMIT_PENDING;
                }
                if (timeout.isEmpty()) {
                    hinted.await();
                } else {
                    if (left <= 0) {
                        return Outcome.TIMED_OUT;
                    }
                    left = hinted.awaitNanos(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.STOPPED;
        } finally {
            waiting--;
            lock.unlock();
        }
    }
}
