package dev.leasebox.drain;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.ProviderOutcome;

import java.time.Instant;
import java.util.Optional;

/** Turns a provider outcome into the completion the drain writes: the one place retry policy lives. */
final class CompletionPolicy {

    private final int maxAttempts;
    private final Backoff backoff;
    private final DrainOptions.AttemptsExhausted whenExhausted;

    CompletionPolicy(int maxAttempts, Backoff backoff) {
        this(maxAttempts, backoff, DrainOptions.AttemptsExhausted.DEAD_LETTER);
    }

    CompletionPolicy(int maxAttempts, Backoff backoff, DrainOptions.AttemptsExhausted whenExhausted) {
        this.maxAttempts = maxAttempts;
        this.backoff = backoff;
        this.whenExhausted = whenExhausted;
    }

    /** The completion for {@code outcome} of an emission of {@code entry} (as claimed or selected) at {@code now}. */
    Completion completionFor(OutboxEntry entry, ProviderOutcome outcome, Instant now) {
        if (outcome instanceof ProviderOutcome.Delivered d) {
            return new Completion.Delivered(new EmissionResult(now, d.detail()));
        }
        if (outcome instanceof ProviderOutcome.Deferred d) {
            return new Completion.Saved(entry.toBuilder().status(EmissionStatus.DEFERRED).nextAttemptAt(d.until()).build());
        }
        if (outcome instanceof ProviderOutcome.PermanentError p) {
            return new Completion.DeadLettered(EmissionError.permanent("permanent", p.message()),
                    "permanent error: " + p.message());
        }
        ProviderOutcome.RetryableError r = (ProviderOutcome.RetryableError) outcome;
        EmissionError error = EmissionError.retryable("retryable", r.message());
        int attempts = entry.attemptCount() + 1;
        if (attempts >= maxAttempts) {
            if (whenExhausted == DrainOptions.AttemptsExhausted.KEEP_RETRYING) {
                return new Completion.Failed(error, Optional.of(now.plus(backoff.delayAfter(Integer.MAX_VALUE))));
            }
            return new Completion.DeadLettered(error, "max attempts (" + maxAttempts + ") reached");
        }
        return new Completion.Failed(error, Optional.of(now.plus(backoff.delayAfter(attempts))));
    }

    /** The reason of a dead-letter completion, for the listener. */
    static Optional<String> deadLetterReason(Completion completion) {
        return completion instanceof Completion.DeadLettered d ? Optional.of(d.reason()) : Optional.empty();
    }
}
