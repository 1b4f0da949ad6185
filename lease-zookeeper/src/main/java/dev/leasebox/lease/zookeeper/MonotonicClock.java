package dev.leasebox.lease.zookeeper;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that never steps: the wall time read once when this class was loaded plus the elapsed
 * {@link System#nanoTime()} since. Local lease deadlines are measured with it, so a step of the wall
 * clock (NTP correction, an operator's {@code date}) neither stretches nor shortens a lease held
 * here. Its instants start equal to the wall clock and drift from it only by the steps and the rate
 * corrections the wall clock takes afterwards.
 */
final class MonotonicClock extends Clock {

    static final MonotonicClock SYSTEM = new MonotonicClock(Instant.now(), System.nanoTime(), ZoneOffset.UTC);

    private final Instant base;
    private final long baseNanos;
    private final ZoneId zone;

    private MonotonicClock(Instant base, long baseNanos, ZoneId zone) {
        this.base = base;
        this.baseNanos = baseNanos;
        this.zone = zone;
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId other) {
        return other.equals(zone) ? this : new MonotonicClock(base, baseNanos, other);
    }

    @Override
    public Instant instant() {
        return base.plusNanos(System.nanoTime() - baseNanos);
    }

    @Override
    public String toString() {
        return "MonotonicClock[base=" + base + "]";
    }
}
