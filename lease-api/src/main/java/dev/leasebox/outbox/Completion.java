package dev.leasebox.outbox;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The final transition a claim holder asks for. Every completion clears the claim fields and keeps
 * the row's fence high-water mark; it is written only while the row's claim token equals the
 * holder's (see {@link CompletionOutcome}).
 */
public sealed interface Completion {

    /** The provider accepted the entry: DELIVERED, attempt count + 1. */
    record Delivered(EmissionResult result) implements Completion {
        public Delivered {
            Objects.requireNonNull(result, "result");
        }
    }

    /**
     * The emission failed: RETRYABLE_FAILURE due at {@code nextRetryAt} when present, else FAILED
     * (parked). Attempt count + 1, last error set.
     */
    record Failed(EmissionError error, Optional<Instant> nextRetryAt) implements Completion {
        public Failed {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(nextRetryAt, "nextRetryAt");
        }
    }

    /** Given up: DEAD_LETTERED with a reason. Attempt count + 1, last error set. */
    record DeadLettered(EmissionError error, String reason) implements Completion {
        public DeadLettered {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Writes the holder's own copy of the entry's emission state (status, attempt count, next
     * attempt, delivered time, last error, dead-letter reason), e.g. DEFERRED until a time. The
     * message itself (key, type, payload, headers) and the claim and fence fields are not taken
     * from {@code entry}.
     */
    record Saved(OutboxEntry entry) implements Completion {
        public Saved {
            Objects.requireNonNull(entry, "entry");
        }
    }

    /** Gives the row back unemitted: status and attempts unchanged, claim cleared. */
    record Released(String reason) implements Completion {
        public Released {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The row as this completion would leave it, applied to {@code current}: the one definition
     * of each transition, shared by the in-memory store and the tests.
     */
    static OutboxEntry apply(Completion completion, OutboxEntry current) {
        OutboxEntry.Builder b = current.toBuilder().clearClaim();
        if (completion instanceof Delivered d) {
            return b.status(EmissionStatus.DELIVERED).attemptCount(current.attemptCount() + 1)
                    .deliveredAt(d.result().deliveredAt()).nextAttemptAt(null).build();
        }
        if (completion instanceof Failed f) {
            return b.status(f.nextRetryAt().isPresent() ? EmissionStatus.RETRYABLE_FAILURE : EmissionStatus.FAILED)
                    .attemptCount(current.attemptCount() + 1).lastError(f.error().describe())
                    .nextAttemptAt(f.nextRetryAt().orElse(null)).build();
        }
        if (completion instanceof DeadLettered d) {
            return b.status(EmissionStatus.DEAD_LETTERED).attemptCount(current.attemptCount() + 1)
                    .lastError(d.error().describe()).deadLetterReason(d.reason()).nextAttemptAt(null).build();
        }
        if (completion instanceof Saved s) {
            OutboxEntry e = s.entry();
            return b.status(e.status()).attemptCount(e.attemptCount())
                    .nextAttemptAt(e.nextAttemptAt().orElse(null))
                    .deliveredAt(e.deliveredAt().orElse(null))
                    .lastError(e.lastError().orElse(null))
                    .deadLetterReason(e.deadLetterReason().orElse(null)).build();
        }
        return b.build(); // Released: emission state unchanged
    }
}
