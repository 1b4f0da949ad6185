package dev.leasebox.drain;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: after failed attempt {@code n} (counting from 1) the delay is
 * uniform in {@code [0, min(cap, initial * 2^(n-1))]}, at millisecond resolution.
 *
 * <p>Full jitter spreads the retries of entries that failed together (a provider outage) over the
 * whole window instead of sending them back in a synchronized wave. Thread-safe.
 */
public final class Backoff {

    private final long initialMillis;
    private final long capMillis;
    private final RandomGenerator random;

    /** A backoff drawing from {@code random}; pass a seeded generator for reproducible tests. */
    public Backoff(Duration initial, Duration cap, RandomGenerator random) {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(cap, "cap");
        this.random = Objects.requireNonNull(random, "random");
        if (initial.toMillis() < 1) {
            throw new IllegalArgumentException("backoff initial delay must be at least 1ms, was " + initial);
        }
        if (cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff cap must be at least the initial delay " + initial + ", was " + cap);
        }
        this.initialMillis = initial.toMillis();
        this.capMillis = cap.toMillis();
    }

    /** A backoff with its own unseeded generator. */
    public Backoff(Duration initial, Duration cap) {
        this(initial, cap, new SplittableRandom());
    }

    /** The largest delay after failed attempt {@code attempt}: {@code min(cap, initial * 2^(attempt-1))}. */
    public Duration ceilingAfter(int attempt) {
        return Duration.ofMillis(ceilingMillis(attempt));
    }

    /** A delay drawn uniformly from {@code [0, ceilingAfter(attempt)]}. */
    public Duration delayAfter(int attempt) {
        long ceiling = ceilingMillis(attempt);
        long drawn;
        synchronized (random) {
            drawn = random.nextLong(ceiling + 1);
        }
        return Duration.ofMillis(drawn);
    }

    private long ceilingMillis(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt counts from 1, was " + attempt);
        }
        int doublings = attempt - 1;
        if (doublings >= Long.numberOfLeadingZeros(initialMillis) - 1) {
            return capMillis; // initial * 2^doublings would overflow; it is far past any cap anyway
        }
        return Math.min(capMillis, initialMillis << doublings);
    }
}
