package dev.leasebox.provider;

import java.time.Instant;
import java.util.Objects;

/**
 * What a provider reports for one emission; the drain turns it into the entry's next status.
 *
 * <ul>
 *   <li>{@link Delivered}: DELIVERED (terminal), attempt count + 1.</li>
 *   <li>{@link Deferred}: DEFERRED, eligible again at {@code until}; the attempt count is unchanged.</li>
 *   <li>{@link RetryableError}: RETRYABLE_FAILURE with an exponential, fully jittered backoff, or
 *       DEAD_LETTERED once the attempts reach the drain's {@code maxAttempts}.</li>
 *   <li>{@link PermanentError}: DEAD_LETTERED at once.</li>
 * </ul>
 */
public sealed interface ProviderOutcome {

    /** The provider accepted the envelope; {@code detail} is its reference (message id, status line), or empty. */
    record Delivered(String detail) implements ProviderOutcome {
        public Delivered {
            Objects.requireNonNull(detail, "detail");
        }
    }

    /** The provider asks to try again at {@code until} (rate limit, maintenance window); not a failure. */
    record Deferred(Instant until, String reason) implements ProviderOutcome {
        public Deferred {
            Objects.requireNonNull(until, "until");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The emission failed and trying again may help. */
    record RetryableError(String message) implements ProviderOutcome {
        public RetryableError {
            Objects.requireNonNull(message, "message");
        }
    }

    /** The emission failed and trying again cannot help (malformed payload, unknown destination). */
    record PermanentError(String message) implements ProviderOutcome {
        public PermanentError {
            Objects.requireNonNull(message, "message");
        }
    }

    static ProviderOutcome delivered() {
        return new Delivered("");
    }

    static ProviderOutcome delivered(String detail) {
        return new Delivered(detail);
    }

    static ProviderOutcome deferredUntil(Instant until, String reason) {
        return new Deferred(until, reason);
    }

    static ProviderOutcome retryable(String message) {
        return new RetryableError(message);
    }

    static ProviderOutcome permanent(String message) {
        return new PermanentError(message);
    }
}
