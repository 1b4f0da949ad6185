package dev.leasebox.drain;

import dev.leasebox.wakeup.WakeUp;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The hints a drain's idle loops wait for. A hint wakes one waiting loop; given while no loop waits, it
 * is kept (one of each kind: hints coalesce) and the next loop to finish a cycle takes it and runs
 * again at once, so an entry committed while a cycle ran is looked for right after it. Under load,
 * when every loop finds work and none waits, hints therefore cost no statement.
 */
final class WakeSignal {

    /** Why {@link #await} returned. */
    enum Outcome { TIMED_OUT, COMMITTED, COMMIT_PENDING, STOPPED }

    private boolean committed;  // guarded by this
    private boolean pending;    // guarded by this
    private boolean stopped;    // guarded by this
    private int waiting;        // guarded by this

    synchronized void wake(WakeUp hint) {
        if (hint == WakeUp.COMMITTED) {
            committed = true;
        } else {
            pending = true;
        }
        notify();
    }

    /** Wakes one waiting loop, if one waits: a loop that took a full batch shares the backlog. */
    synchronized void handOff() {
        if (waiting > 0) {
            committed = true;
            notify();
        }
    }

    /** Every wait, now and later, returns {@link Outcome#STOPPED}. */
    synchronized void stop() {
        stopped = true;
        notifyAll();
    }

    /**
     * Waits for a hint, at most {@code timeout} (empty: however long). A committed hint is taken before a
     * pending one. An interrupted wait returns {@link Outcome#STOPPED}, the interrupt kept.
     */
    synchronized Outcome await(Optional<Duration> timeout) {
        long deadline = timeout.map(t -> System.nanoTime() + t.toNanos()).orElse(0L);
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
                    wait();
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return Outcome.TIMED_OUT;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.STOPPED;
        } finally {
            waiting--;
        }
    }
}
