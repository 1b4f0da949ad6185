package dev.leasebox.drain;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;

/**
 * Makes a failing provider heard without a line per entry: the first failed emission is reported at
 * once with the provider's message, later ones at most once per interval as a count (and how many
 * entries were dead-lettered meanwhile) with the latest message. {@link #flush()} reports what the
 * interval held back. Thread-safe.
 */
public final class ProviderFailureLog implements DrainListener {

    private final Consumer<String> sink;
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private boolean reported;
    private long lastReportNanos;
    private long heldBackFailures;
    private long heldBackDeadLetters;
    private String lastFailure;

    /**
     * @param sink     receives each line
     * @param interval the least time between two lines
     * @param nanoTime the time source ({@code System::nanoTime})
     */
    public ProviderFailureLog(Consumer<String> sink, Duration interval, LongSupplier nanoTime) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.intervalNanos = interval.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /** At most one line every ten seconds. */
    public ProviderFailureLog(Consumer<String> sink) {
        this(sink, Duration.ofSeconds(10), System::nanoTime);
    }

    @Override
    public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
        String message;
        if (outcome instanceof ProviderOutcome.RetryableError e) {
            message = e.message();
        } else if (outcome instanceof ProviderOutcome.PermanentError e) {
            message = "permanent: " + e.message();
        } else {
            return;
        }
        String line = null;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            if (!reported) {
                reported = true;
                lastReportNanos = now;
                line = "provider failed (entry " + envelope.entryId() + ", attempt " + envelope.attempt() + "): " + message
                        + "; further failures are summed up every " + Duration.ofNanos(intervalNanos).toSeconds() + "s";
            } else {
                heldBackFailures++;
                lastFailure = message;
                if (now - lastReportNanos >= intervalNanos) {
                    lastReportNanos = now;
                    line = heldBack();
                }
            }
        }
        if (line != null) {
            sink.accept(line);
        }
    }

    @Override
    public synchronized void deadLettered(long entryId, String reason) {
        heldBackDeadLetters++;
    }

    /** Reports failures and dead letters not yet reported, if any. */
    public void flush() {
        String line;
        synchronized (this) {
            if (heldBackFailures == 0 && heldBackDeadLetters == 0) {
                return;
            }
            line = heldBack();
        }
        sink.accept(line);
    }

    private String heldBack() {
        String line = String.format(Locale.ROOT, "provider still failing: %,d more failed attempt%s, %,d dead-lettered; latest: %s",
                heldBackFailures, heldBackFailures == 1 ? "" : "s", heldBackDeadLetters,
                lastFailure == null ? "(none)" : lastFailure);
        heldBackFailures = 0;
        heldBackDeadLetters = 0;
        return line;
    }
}
