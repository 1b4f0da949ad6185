package dev.leasebox.lease.hazelcast;

import com.hazelcast.cp.lock.FencedLock;

import java.time.Duration;
import java.time.Instant;

/**
 * A FencedLock that this manager's CP session and owner thread may still hold although no lease of
 * it is left: an unlock failed without telling whether it took effect (the cluster was unreachable
 * past the operation timeout, or the CP group changed leader), or a {@code tryLock} found the lock
 * held already and re-entered it. No key of it is granted while it is here, since a {@code tryLock}
 * on the owner thread would re-enter it and return the fence of an earlier grant; the owner thread
 * unlocks it again, backing off between attempts, until an unlock succeeds or the cluster answers
 * that the thread holds it no more (the session ended or an earlier unlock took effect late).
 * Confined to its owner thread.
 */
final class LeakedLock {

    private static final Duration FIRST_RETRY = Duration.ofMillis(500);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(5);

    private final String lockName;
    private final FencedLock lock;
    private final long fence;
    /** Unlocks still owed: one per acquisition of the lock by this thread not yet undone. */
    private int holds;
    private int attempts;
    private Instant nextAttempt;

    LeakedLock(String lockName, FencedLock lock, long fence, int holds, Instant now) {
        this.lockName = lockName;
        this.lock = lock;
        this.fence = fence;
        this.holds = holds;
        this.nextAttempt = now.plus(FIRST_RETRY);
    }

    String lockName() {
        return lockName;
    }

    FencedLock lock() {
        return lock;
    }

    /** The fence of the grant the lock was held under (-1 when not known). */
    long fence() {
        return fence;
    }

    int holds() {
        return holds;
    }

    /** One more unlock took effect; true when none is owed any more. */
    boolean unlocked() {
        holds--;
        return holds <= 0;
    }

    int attempts() {
        return attempts;
    }

    boolean due(Instant now) {
        return !now.isBefore(nextAttempt);
    }

    /** An unlock failed again at {@code now}: the next waits twice as long as the last, up to five seconds. */
    void failed(Instant now) {
        attempts++;
        Duration wait = FIRST_RETRY.multipliedBy(1L << Math.min(attempts, 4));
        nextAttempt = now.plus(wait.compareTo(LONGEST_RETRY) > 0 ? LONGEST_RETRY : wait);
    }

    /** Makes the next attempt due at once (the connection to the cluster came back). */
    void retryNow(Instant now) {
        nextAttempt = now;
    }
}
