package dev.leasebox.drain;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CompletionPolicyTest {

    private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

    private static OutboxEntry entryWithAttempts(int attempts) {
        return OutboxEntry.builder().id(1).idempotencyKey("k").type("t").payload(new byte[] {1})
                .status(EmissionStatus.RETRYABLE_FAILURE).attemptCount(attempts).createdAt(NOW).build();
    }

    private static CompletionPolicy policy(DrainOptions.AttemptsExhausted when) {
        return new CompletionPolicy(3, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5), new Random(7)), when);
    }

    @Test
    void exhaustedAttemptsDeadLetterByDefault() {
        Completion c = policy(DrainOptions.AttemptsExhausted.DEAD_LETTER)
                .completionFor(entryWithAttempts(2), new ProviderOutcome.RetryableError("503"), NOW);
        assertThat(c).isInstanceOf(Completion.DeadLettered.class);
    }

    @Test
    void keepRetryingLeavesTheEntryRetryableWithinTheBackoffCap() {
        Completion c = policy(DrainOptions.AttemptsExhausted.KEEP_RETRYING)
                .completionFor(entryWithAttempts(2), new ProviderOutcome.RetryableError("503"), NOW);
        assertThat(c).isInstanceOf(Completion.Failed.class);
        Instant next = ((Completion.Failed) c).nextRetryAt().orElseThrow();
        assertThat(next).isBetween(NOW, NOW.plus(Duration.ofMinutes(5)));
    }

    @Test
    void beforeExhaustionBothPoliciesRetry() {
        for (DrainOptions.AttemptsExhausted when : DrainOptions.AttemptsExhausted.values()) {
            assertThat(policy(when).completionFor(entryWithAttempts(0), new ProviderOutcome.RetryableError("503"), NOW))
                    .isInstanceOf(Completion.Failed.class);
        }
    }
}
