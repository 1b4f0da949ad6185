package dev.leasebox.lease;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A {@link Clock} for local lease deadlines: it reads the wall clock once, when created, and from then on
 * advances only with {@link System#nanoTime()}. A step of the machine's wall clock (an operator, a VM
 * resumed from a snapshot, an NTP step) does not move it, so a deadline taken from it ends when the lease's
 * duration has really passed, whatever the wall clock did in between. It follows the rate corrections NTP
 * makes to the monotonic clock, so it stays within those of real time; it is not for judging expiries that
 * other machines wrote (the database's or the coordinator's clock judges those).
 *
 * <p>{@link #system()} is one instance for the whole JVM, so that every deadline a worker takes and every
 * comparison it makes use the same anchor.
 */
public final class MonotonicClock extends Clock {

    private static final MonotonicClock SYSTEM = new MonotonicClock(Instant.now(), System::nanoTime);

    private final Instant anchor;
    private final long anchorNanos;
    private final LongSupplier nanos;

    /** A clock that reads {@code anchor} now and then advances with {@code nanos} (for tests: a source you move). */
    public MonotonicClock(Instant anchor, LongSupplier nanos) {
        this.anchor = Objects.requireNonNull(anchor, "anchor");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        this.anchorNanos = nanos.getAsLong();
    }

    /** The JVM's monotonic clock, anchored to the wall clock when this class was loaded. */
    public static Clock system() {
        return SYSTEM;
    }

    @Override
    public Instant instant() {
        return anchor.plusNanos(nanos.getAsLong() - anchorNanos);
    }

    @Override
    public long millis() {
        return instant().toEpochMilli();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Always UTC: a deadline has no zone. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("a monotonic clock keeps UTC; convert its instants instead");
        }
        return this;
    }

    @Override
    public String toString() {
        return "MonotonicClock[anchored at " + anchor + "]";
    }
}
