package dev.leasebox.lease;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class MonotonicClockTest {

    @Test
    void advancesOnlyWithTheMonotonicSourceFromItsAnchor() {
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        Instant anchor = Instant.parse("2026-01-01T00:00:00Z");
        MonotonicClock clock = new MonotonicClock(anchor, nanos::get);
        assertThat(clock.instant()).isEqualTo(anchor);
        nanos.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(clock.instant()).isEqualTo(anchor.plusSeconds(30));
        assertThat(clock.millis()).isEqualTo(anchor.plusSeconds(30).toEpochMilli());
    }

    @Test
    void theSystemClockNeverGoesBackwards() {
        Instant previous = MonotonicClock.system().instant();
        for (int i = 0; i < 10_000; i++) {
            Instant now = MonotonicClock.system().instant();
            assertThat(now).isAfterOrEqualTo(previous);
            previous = now;
        }
        assertThat(Duration.between(MonotonicClock.system().instant(), Instant.now()).abs())
                .as("anchored to the wall clock").isLessThan(Duration.ofMinutes(1));
    }
}
