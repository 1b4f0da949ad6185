package dev.leasebox.drain;

import java.time.Duration;
import java.util.Objects;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ErrorClassifier;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;

/**
 * Calls the provider and turns whatever it does into a {@link ProviderOutcome}: exceptions are
 * classified, a missing outcome is a retryable error. Never throws an {@link Exception}.
 */
final class Emitter {

    private final OutboxProvider provider;
    private final ErrorClassifier classifier;
    private final DrainListener listener;

    Emitter(OutboxProvider provider, ErrorClassifier classifier, DrainListener listener) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    ProviderOutcome emit(Envelope envelope) {
        listener.emitting(envelope);
        long started = System.nanoTime();
        ProviderOutcome outcome;
        try {
            outcome = provider.emit(envelope);
            if (outcome == null) {
                outcome = ProviderOutcome.retryable("provider " + provider.getClass().getName() + " returned no outcome");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = ProviderOutcome.retryable("emission interrupted: " + describe(e));
        } catch (Exception e) {
            outcome = isPermanent(e) ? ProviderOutcome.permanent(describe(e)) : ProviderOutcome.retryable(describe(e));
        }
        listener.emitted(envelope, outcome, Duration.ofNanos(System.nanoTime() - started));
        return outcome;
    }

    /** A classifier that throws cannot turn a transient failure into a lost message: it counts as retryable. */
    private boolean isPermanent(Exception e) {
        try {
            return classifier.isPermanent(e);
        } catch (RuntimeException classifierFailure) {
            return false;
        }
    }

    static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getClass().getName() + ": " + e.getMessage();
    }
}
