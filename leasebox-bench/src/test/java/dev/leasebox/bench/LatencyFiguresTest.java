package dev.leasebox.bench;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Percentiles out of the histogram, their CSV fields, and the probe's pairing of commits with emissions. */
class LatencyFiguresTest {

    private final AtomicLong now = new AtomicLong(-5_000_000_000L); // nanoTime may be negative
    private final LatencyProbe probe = new LatencyProbe(now::get);

    @Test
    void percentilesOfOneToATousandMilliseconds() {
        Histogram micros = LatencySummary.micros();
        for (int ms = 1; ms <= 1000; ms++) {
            micros.recordValue(ms * 1000L);
        }
        LatencySummary s = LatencySummary.of(micros);
        assertThat(s.count()).isEqualTo(1000);
        assertThat(s.p50Ms()).isCloseTo(500, within(0.5));
        assertThat(s.p99Ms()).isCloseTo(990, within(1.0));
        assertThat(s.p999Ms()).isCloseTo(999, within(1.0));
        assertThat(s.maxMs()).isCloseTo(1000, within(1.0));
    }

    @Test
    void csvFieldsAreMillisecondsWithThreeDecimalsAndEmptyForNoSamples() {
        Histogram micros = LatencySummary.micros();
        micros.recordValue(1500);
        micros.recordValue(250);
        assertThat(LatencySummary.of(micros).csvFields()).containsExactly("0.250", "1.500", "1.500", "1.500");
        assertThat(LatencySummary.of(LatencySummary.micros())).isEqualTo(LatencySummary.NONE);
        assertThat(LatencySummary.NONE.csvFields()).containsExactly("", "", "", "");
    }

    @Test
    void measuresFromTheCommitToTheFirstEmissionAndToTheCompletion() {
        probe.committed(List.of(1L), now.get(), true);
        now.addAndGet(2_000_000);
        probe.emitting(envelope(1));
        now.addAndGet(1_000_000);
        probe.emitting(envelope(1)); // a second emission does not move the first
        now.addAndGet(1_500_000);
        probe.completed(1, delivered(), completed(1));

        assertThat(probe.emission().count()).isEqualTo(1);
        assertThat(probe.emission().p50Ms()).isEqualTo(2.0);
        assertThat(probe.finalized().maxMs()).as("three significant digits").isCloseTo(4.5, within(0.005));
        assertThat(probe.outstanding()).isZero();
    }

    @Test
    void anEmissionSeenBeforeTheWritersClockReadCountsAsZero() {
        probe.emitting(envelope(7));
        now.addAndGet(300_000);
        probe.committed(List.of(7L), now.get(), true);
        assertThat(probe.outstanding()).isEqualTo(1);
        now.addAndGet(1_000_000);
        probe.completed(7, delivered(), completed(7));

        assertThat(probe.emission().maxMs()).isZero();
        assertThat(probe.finalized().maxMs()).isEqualTo(1.0);
        assertThat(probe.outstanding()).isZero();
    }

    @Test
    void warmUpRowsAreNotMeasuredAndUnfinishedRowsStayOutstanding() throws InterruptedException {
        probe.committed(List.of(1L, 2L), now.get(), false);
        probe.committed(List.of(3L), now.get(), true);
        now.addAndGet(1_000_000);
        probe.emitting(envelope(1));
        probe.completed(1, delivered(), completed(1));
        probe.emitting(envelope(3));

        assertThat(probe.emission().count()).isEqualTo(1);
        assertThat(probe.finalized().count()).isZero();
        assertThat(probe.awaitFinalized(0)).isEqualTo(1);
    }

    private static Envelope envelope(long id) {
        return Envelope.forUnclaimed(entry(id), "w1");
    }

    private static OutboxEntry entry(long id) {
        return OutboxEntry.builder().id(id).idempotencyKey("k" + id).type("t").createdAt(Instant.EPOCH).build();
    }

    private static Completion delivered() {
        return new Completion.Delivered(EmissionResult.at(Instant.EPOCH));
    }

    private static CompletionOutcome completed(long id) {
        return new CompletionOutcome.Completed(entry(id));
    }
}
