package dev.leasebox.bench;

import dev.leasebox.drain.DrainListener;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.provider.Envelope;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The latencies of a latency cell, from each row's commit to its first emission and to its completion being
 * written. The writer hands in the commit time ({@link System#nanoTime()} right after {@code commit()}
 * returned); the workers, in the same JVM, report emissions and completions through their listener, timed
 * on the same monotonic clock. A worker may emit a row before the writer has noted its commit time (the
 * commit is visible before the writer's clock read): the events meet in one record per row whichever
 * comes first, and such a latency counts as 0.
 */
final class LatencyProbe implements DrainListener {

    /** Not seen yet: {@link System#nanoTime()} may be negative, so -1 would not do. */
    private static final long UNSET = Long.MIN_VALUE;

    private final Map<Long, Arrival> arrivals = new ConcurrentHashMap<>();
    private final Histogram emission = LatencySummary.micros();
    private final Histogram finalized = LatencySummary.micros();
    private final AtomicLong outstanding = new AtomicLong();
    private final LongSupplier nanoTime;

    LatencyProbe() {
        this(System::nanoTime);
    }

    LatencyProbe(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Rows {@code ids} were committed at {@code commitNanos}; {@code measured}: they count in the figures. */
    void committed(List<Long> ids, long commitNanos, boolean measured) {
        for (long id : ids) {
            if (measured) {
                outstanding.incrementAndGet();
            }
            update(id, a -> {
                a.committed = commitNanos;
                a.measured = measured;
            });
        }
    }

    @Override
    public void emitting(Envelope envelope) {
        long now = nanoTime.getAsLong();
        update(envelope.entryId(), a -> {
            if (a.emitted == UNSET) {
                a.emitted = now;
            }
        });
    }

    @Override
    public void completed(long entryId, Completion completion, CompletionOutcome outcome) {
        if (completion instanceof Completion.Delivered) {
            long now = nanoTime.getAsLong();
            update(entryId, a -> {
                if (a.finalized == UNSET) {
                    a.finalized = now;
                }
            });
        }
    }

    /** Measured rows committed but not yet finalized. */
    long outstanding() {
        return outstanding.get();
    }

    /** Waits until every measured row is finalized or {@code timeoutNanos} passed; the rows still outstanding. */
    long awaitFinalized(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (outstanding.get() > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(5); // polls a counter the workers' threads move; no event to wait on
        }
        return outstanding.get();
    }

    LatencySummary emission() {
        return LatencySummary.of(emission);
    }

    LatencySummary finalized() {
        return LatencySummary.of(finalized);
    }

    private void update(long id, java.util.function.Consumer<Arrival> change) {
        arrivals.compute(id, (k, a) -> {
            Arrival arrival = a == null ? new Arrival() : a;
            change.accept(arrival);
            record(arrival);
            return arrival.finalizedRecorded ? null : arrival;
        });
    }

    /** Records what this row's events allow, once each; called under the row's map entry. */
    private void record(Arrival a) {
        if (a.committed == UNSET) {
            return;
        }
        if (a.emitted != UNSET && !a.emissionRecorded) {
            a.emissionRecorded = true;
            if (a.measured) {
                emission.recordValue(micros(a.emitted - a.committed));
            }
        }
        if (a.finalized != UNSET && !a.finalizedRecorded) {
            a.finalizedRecorded = true;
            if (a.measured) {
                finalized.recordValue(micros(a.finalized - a.committed));
                outstanding.decrementAndGet();
            }
        }
    }

    /** Nanoseconds as whole microseconds; a negative difference (the event before the writer's clock read) is 0. */
    static long micros(long nanos) {
        return Math.max(0, nanos) / 1_000;
    }

    private static final class Arrival {
        long committed = UNSET;
        long emitted = UNSET;
        long finalized = UNSET;
        boolean measured;
        boolean emissionRecorded;
        boolean finalizedRecorded;
    }
}
