package dev.leasebox.jdbc.store;

import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.outbox.ClaimSelection;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class QueueHeadTest {

    private final AtomicLong nanos = new AtomicLong();
    private final QueueHead head = new QueueHead(new MonotonicClock(Instant.EPOCH, nanos::get), Duration.ofSeconds(1));

    @Test
    void theFirstReadIsFullAndTheNextStartsWhereItFoundTheHead() {
        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(QueueHead.FULL);
        head.found(ClaimSelection.ELIGIBLE, QueueHead.FULL, 500L);

        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(500L);
        head.found(ClaimSelection.ELIGIBLE, 500L, 620L);
        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(620L);
    }

    @Test
    void aReadStartsFromTheBeginningAgainOnceTheRescanIntervalPassed() {
        head.found(ClaimSelection.ELIGIBLE, QueueHead.FULL, 500L);
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        head.found(ClaimSelection.ELIGIBLE, 500L, 700L);
        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(700L);

        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(QueueHead.FULL);
        head.found(ClaimSelection.ELIGIBLE, QueueHead.FULL, 3L); // a row below the head became eligible again
        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(3L);
    }

    @Test
    void anEmptyReadFromTheHeadMakesTheNextReadFull() {
        head.found(ClaimSelection.ELIGIBLE, QueueHead.FULL, 500L);
        head.found(ClaimSelection.ELIGIBLE, 500L, null);

        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(QueueHead.FULL);
        head.found(ClaimSelection.ELIGIBLE, QueueHead.FULL, null);
        assertThat(head.from(ClaimSelection.ELIGIBLE)).isEqualTo(QueueHead.FULL);
    }

    @Test
    void selectionsKeepTheirOwnHeads() {
        head.found(ClaimSelection.PENDING, QueueHead.FULL, 500L);

        assertThat(head.from(ClaimSelection.RETRY_READY)).isEqualTo(QueueHead.FULL);
        assertThat(head.from(ClaimSelection.PENDING)).isEqualTo(500L);
    }

    @Test
    void aRescanOfZeroMakesEveryReadFull() {
        QueueHead always = new QueueHead(new MonotonicClock(Instant.EPOCH, nanos::get), Duration.ZERO);
        always.found(ClaimSelection.ELIGIBLE, QueueHead.FULL, 500L);

        assertThat(always.from(ClaimSelection.ELIGIBLE)).isEqualTo(QueueHead.FULL);
    }
}
