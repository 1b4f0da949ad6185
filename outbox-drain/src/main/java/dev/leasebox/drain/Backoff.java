package dev.leasebox.drain;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: after failed attempt {@code n} (counting from 1) the ceiling is
 * {@code min(cap, initial * multiplier^(n-1))} and the delay is drawn uniformly from
 * {@code [ceiling * (1 - jitter), ceiling]}, at millisecond resolution.
 *
 * <p>The defaults ({@link #DEFAULT_MULTIPLIER} 2, {@link #DEFAULT_JITTER} 1.0, "full jitter") spread the
 * retries of entries that failed together (a provider outage) over the whole window instead of sending
 * them back in a synchronized wave; a jitter of 0 waits exactly the ceiling. Thread-safe.
 */
public final class Backoff {

    /** The default growth per failed attempt. */
    public static final double DEFAULT_MULTIPLIER = 2.0;
    /** The default jitter: full, a delay anywhere from zero to the ceiling. */
    public static final double DEFAULT_JITTER = 1.0;
    /** The largest multiplier accepted. */
    public static final double MAX_MULTIPLIER = 100.0;

    private final long initialMillis;
    private final double multiplier;
    private final long capMillis;
    private final double jitter;
    private final RandomGenerator random;

    /**
     * A backoff drawing from {@code random}; pass a seeded generator for reproducible tests.
     *
     * @param multiplier in [1, 100]: 1 keeps every ceiling at {@code initial}
     * @param jitter     in [0, 1]: the fraction of the ceiling the delay may fall short of it
     */
    public Backoff(Duration initial, double multiplier, Duration cap, double jitter, RandomGenerator random) {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(cap, "cap");
        this.random = Objects.requireNonNull(random, "random");
        if (initial.toMillis() < 1) {
            throw new IllegalArgumentException("backoff initial delay must be at least 1ms, was " + initial);
        }
        if (cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff cap must be at least the initial delay " + initial + ", was " + cap);
        }
        if (!(multiplier >= 1.0 && multiplier <= MAX_MULTIPLIER)) {
            throw new IllegalArgumentException("backoff multiplier must be in 1.." + (int) MAX_MULTIPLIER + ", was " + multiplier);
        }
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new IllegalArgumentException("backoff jitter must be in 0..1, was " + jitter);
        }
        this.initialMillis = initial.toMillis();
        this.multiplier = multiplier;
        this.capMillis = cap.toMillis();
        this.jitter = jitter;
    }

    /** Doubling with full jitter, drawing from {@code random}. */
    public Backoff(Duration initial, Duration cap, RandomGenerator random) {
        this(initial, DEFAULT_MULTIPLIER, cap, DEFAULT_JITTER, random);
    }

    /** Doubling with full jitter, with its own unseeded generator. */
    public Backoff(Duration initial, Duration cap) {
        this(initial, cap, new SplittableRandom());
    }

    /** The largest delay after failed attempt {@code attempt}: {@code min(cap, initial * multiplier^(attempt-1))}. */
    public Duration ceilingAfter(int attempt) {
        return Duration.ofMillis(ceilingMillis(attempt));
    }

    /** The smallest delay after failed attempt {@code attempt}: the ceiling less its jitter share. */
    public Duration floorAfter(int attempt) {
        return Duration.ofMillis(floorMillis(ceilingMillis(attempt)));
    }

    /** A delay drawn uniformly from {@code [floorAfter(attempt), ceilingAfter(attempt)]}. */
    public Duration delayAfter(int attempt) {
        long ceiling = ceilingMillis(attempt);
        long floor = floorMillis(ceiling);
        if (floor == ceiling) {
            return Duration.ofMillis(ceiling);
        }
        long drawn;
        synchronized (random) {
            drawn = floor + random.nextLong(ceiling - floor + 1);
        }
        return Duration.ofMillis(drawn);
    }

    private long floorMillis(long ceiling) {
        return ceiling - (long) Math.floor(ceiling * jitter);
    }

    private long ceilingMillis(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt counts from 1, was " + attempt);
        }
        double ceiling = initialMillis * Math.pow(multiplier, attempt - 1.0);
        if (Double.isNaN(ceiling) || ceiling >= capMillis) {
            return capMillis; // also where initial * multiplier^n overflows: it is far past any cap anyway
        }
        return Math.min(capMillis, Math.round(ceiling));
    }
}
