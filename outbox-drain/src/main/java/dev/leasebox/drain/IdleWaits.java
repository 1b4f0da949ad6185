package dev.leasebox.drain;

import java.time.Duration;
import java.util.Optional;

/**
 * How long one claim loop waits after a cycle that took nothing: the idle backoff ({@code idlePollMin}
 * doubling up to {@code idlePollMax}) of a loop that polls; for a loop that runs only when woken, a short
 * tail of the same backoff after it took entries ({@value #TAIL_POLLS} looks: entries committed alongside
 * those it was woken for may have sent no hint of their own), then none; and a short burst after a
 * {@link WakeUp#COMMIT_PENDING} hint. The burst does not move the backoff: once it is over, the loop waits
 * as it would have without it. Not thread-safe: one per loop.
 */
final class IdleWaits {

    /** The burst's first wait, in milliseconds; each further wait doubles (5, 10, 20, 40, 80 ms). */
    static final int BURST_FIRST_MILLIS = 5;

    /** Cycles a burst runs. */
    static final int BURST_POLLS = 5;

    /** Looks a loop that does not poll takes after it took entries, at the idle backoff. */
    static final int TAIL_POLLS = 3;

    private final Duration min;
    private final Duration max;
    private final boolean polls;
    private Duration backoff;
    private Duration burst;
    private int burstPollsLeft;
    private int tailPollsLeft;

    /**
     * @param polls false for a loop that waits for wake-ups and hand-offs only, however long
     */
    IdleWaits(Duration min, Duration max, boolean polls) {
        this.min = min;
        this.max = max;
        this.polls = polls;
        this.backoff = polls ? min : null;
    }

    /** A cycle took entries: the backoff starts over (a loop that does not poll: for its tail), a burst ends. */
    void busy() {
        backoff = min;
        tailPollsLeft = polls ? 0 : TAIL_POLLS;
        burst = null;
        burstPollsLeft = 0;
    }

    /** The wait before the next cycle; empty: until woken. */
    Optional<Duration> next() {
        if (burst == null) {
            return Optional.ofNullable(backoff);
        }
        return Optional.of(backoff == null || burst.compareTo(backoff) < 0 ? burst : backoff);
    }

    /** The wait ran out (and a cycle follows): the wait that ran out doubles, the burst's up to its last. */
    void timedOut() {
        if (burst != null && (backoff == null || burst.compareTo(backoff) < 0)) {
            burstPollsLeft--;
            burst = burstPollsLeft > 0 ? burst.multipliedBy(2) : null;
            return;
        }
        if (backoff != null) {
            Duration doubled = backoff.multipliedBy(2);
            backoff = doubled.compareTo(max) > 0 ? max : doubled;
            if (!polls && --tailPollsLeft <= 0) {
                backoff = null;
            }
        }
    }

    /** A commit is pending: the next waits are the burst's. */
    void commitPending() {
        burst = Duration.ofMillis(BURST_FIRST_MILLIS);
        burstPollsLeft = BURST_POLLS;
    }
}
