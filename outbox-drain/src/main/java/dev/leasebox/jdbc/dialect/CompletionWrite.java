package dev.leasebox.jdbc.dialect;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionStatus;

import java.time.Instant;

/**
 * A {@link Completion} as column writes, so that one token-checked UPDATE carries every kind of
 * completion: per column either a value to set or "keep what the row has". Counters are written
 * relative to the row (attempt_count + 1), never from a value read earlier, so no completion is a
 * read-then-write. Mirrors {@link Completion#apply}.
 */
record CompletionWrite(long entryId, long token, String status, Integer attemptCount, int attemptIncrement,
                       boolean setNextAttempt, Instant nextAttemptAt, boolean setDeliveredAt, Instant deliveredAt,
                       boolean setLastError, String lastError, boolean setDeadLetterReason, String deadLetterReason) {

    static CompletionWrite of(long entryId, long token, Completion completion) {
        if (completion instanceof Completion.Delivered d) {
            return new CompletionWrite(entryId, token, EmissionStatus.DELIVERED.name(), null, 1,
                    true, null, true, EntryRows.micros(d.result().deliveredAt()), false, null, false, null);
        }
        if (completion instanceof Completion.Failed f) {
            EmissionStatus status = f.nextRetryAt().isPresent() ? EmissionStatus.RETRYABLE_FAILURE : EmissionStatus.FAILED;
            return new CompletionWrite(entryId, token, status.name(), null, 1,
                    true, f.nextRetryAt().map(EntryRows::micros).orElse(null), false, null,
                    true, f.error().describe(), false, null);
        }
        if (completion instanceof Completion.DeadLettered d) {
            return new CompletionWrite(entryId, token, EmissionStatus.DEAD_LETTERED.name(), null, 1,
                    true, null, false, null, true, d.error().describe(), true, d.reason());
        }
        if (completion instanceof Completion.Saved s) {
            var e = s.entry();
            return new CompletionWrite(entryId, token, e.status().name(), e.attemptCount(), 0,
                    true, e.nextAttemptAt().map(EntryRows::micros).orElse(null),
                    true, e.deliveredAt().map(EntryRows::micros).orElse(null),
                    true, e.lastError().orElse(null), true, e.deadLetterReason().orElse(null));
        }
        // Released: emission state unchanged, only the claim is cleared.
        return new CompletionWrite(entryId, token, null, null, 0, false, null, false, null, false, null, false, null);
    }
}
