package dev.leasebox.drain;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ErrorClassifier;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each provider outcome, on the claim path over leases, lands the entry in the right status. */
class ProviderOutcomeTest {

    private final DrainFixture f = new DrainFixture();

    @AfterEach
    void closeFixture() {
        f.close();
    }

    @Test
    void deliveredIsWrittenUnderTheClaimAndTheEnvelopeCarriesMessageFenceAndOwner() {
        OutboxEntry entry = f.enqueue(1).get(0);
        RecordingProvider provider = RecordingProvider.delivering(f.clock);
        LeasedOutboxClaimStore store = f.newClaimStore();
        OutboxDrain drain = f.register(f.drainOn(store, provider, DrainFixture.options("worker-a").build()).build());

        CycleResult result = drain.runOnce();

        assertThat(result).isEqualTo(new CycleResult(1, 1, 0, 0, 0, 0, 0, 0));
        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.deliveredAt()).contains(f.clock.instant());
        assertThat(row.claimToken()).isEmpty();
        assertThat(row.claimOwner()).isEmpty();
        Envelope envelope = provider.envelopes.get(0);
        assertThat(envelope.entryId()).isEqualTo(entry.id());
        assertThat(envelope.idempotencyKey()).isEqualTo(entry.idempotencyKey());
        assertThat(envelope.partitionKey()).contains("customer-0");
        assertThat(envelope.type()).isEqualTo("order.placed");
        assertThat(new String(envelope.payload(), StandardCharsets.UTF_8)).isEqualTo("order-0");
        assertThat(envelope.headers()).isEqualTo(Map.of("source", "test"));
        assertThat(envelope.fence()).hasValue(row.fenceHighWater());
        assertThat(envelope.attempt()).isEqualTo(1);
        assertThat(envelope.owner()).isEqualTo("worker-a");
        assertThat(store.heldCount()).as("the lease is released after completion").isZero();
        assertThat(f.leases.heldCount()).isZero();
        assertThat(drain.runOnce().isIdle()).isTrue();
    }

    @Test
    void deferredWaitsUntilItsTimeWithoutSpendingAnAttemptThenIsEligibleAgain() {
        OutboxEntry entry = f.enqueue(1).get(0);
        Instant until = f.clock.instant().plus(Duration.ofMinutes(1));
        RecordingProvider provider = new RecordingProvider(f.clock, e -> e.attempt() == 1 && f.clock.instant().isBefore(until)
                ? ProviderOutcome.deferredUntil(until, "rate limited") : ProviderOutcome.delivered());
        OutboxDrain drain = f.drain("worker-a", provider);

        assertThat(drain.runOnce()).isEqualTo(new CycleResult(1, 0, 1, 0, 0, 0, 0, 0));
        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DEFERRED);
        assertThat(row.nextAttemptAt()).contains(until);
        assertThat(row.attemptCount()).isZero();
        assertThat(row.claimToken()).isEmpty();

        f.clock.advance(Duration.ofSeconds(59));
        assertThat(drain.runOnce().isIdle()).as("not due before its time").isTrue();
        f.clock.advance(Duration.ofSeconds(1));
        assertThat(drain.runOnce().delivered()).isEqualTo(1);
        assertThat(f.row(entry.id()).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(provider.emissions).extracting(RecordingProvider.Emission::attempt).containsExactly(1, 1);
    }

    @Test
    void retryableFailuresBackOffWithinTheCapThenDeadLetterAtMaxAttempts() {
        OutboxEntry entry = f.enqueue(1).get(0);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> ProviderOutcome.retryable("503 Service Unavailable"));
        RecordingListener listener = new RecordingListener();
        DrainOptions options = DrainFixture.options("worker-a").maxAttempts(3)
                .backoff(Duration.ofSeconds(1), Duration.ofMillis(1500)).build();
        OutboxDrain drain = f.register(f.drainOn(f.newClaimStore(), provider, options).listener(listener).build());

        Instant first = f.clock.instant();
        assertThat(drain.runOnce()).isEqualTo(new CycleResult(1, 0, 0, 1, 0, 0, 0, 0));
        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.lastError()).contains("retryable: 503 Service Unavailable");
        assertThat(row.nextAttemptAt().orElseThrow()).isBetween(first, first.plusSeconds(1));

        f.clock.set(row.nextAttemptAt().orElseThrow());
        Instant second = f.clock.instant();
        assertThat(drain.runOnce().retry()).isEqualTo(1);
        row = f.row(entry.id());
        assertThat(row.attemptCount()).isEqualTo(2);
        assertThat(row.nextAttemptAt().orElseThrow()).as("2 s ceiling capped at 1.5 s")
                .isBetween(second, second.plusMillis(1500));

        f.clock.set(row.nextAttemptAt().orElseThrow());
        assertThat(drain.runOnce()).isEqualTo(new CycleResult(1, 0, 0, 0, 1, 0, 0, 0));
        row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(row.attemptCount()).isEqualTo(3);
        assertThat(row.deadLetterReason()).contains("max attempts (3) reached");
        assertThat(listener.deadLetterReasons).containsExactly("max attempts (3) reached");
        assertThat(provider.emissions).extracting(RecordingProvider.Emission::attempt).containsExactly(1, 2, 3);

        f.clock.advance(Duration.ofHours(1));
        assertThat(drain.runOnce().isIdle()).as("dead letters are never emitted again").isTrue();
    }

    @Test
    void aPermanentErrorDeadLettersAtOnce() {
        OutboxEntry entry = f.enqueue(1).get(0);
        OutboxDrain drain = f.drain("worker-a",
                new RecordingProvider(f.clock, e -> ProviderOutcome.permanent("400 schema violation")));

        assertThat(drain.runOnce().deadLettered()).isEqualTo(1);

        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.deadLetterReason()).contains("permanent error: 400 schema violation");
        assertThat(row.lastError()).contains("permanent: 400 schema violation");
    }

    @Test
    void anExceptionIsRetryableByDefault() {
        OutboxEntry entry = f.enqueue(1).get(0);
        OutboxDrain drain = f.drain("worker-a", new RecordingProvider(f.clock, e -> {
            throw new IOException("connection reset");
        }));

        assertThat(drain.runOnce().retry()).isEqualTo(1);

        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(row.lastError()).contains("retryable: java.io.IOException: connection reset");
    }

    @Test
    void theClassifierMakesChosenExceptionsPermanentAndLeavesOthersRetryable() {
        OutboxEntry badTopic = f.enqueue(2).get(0);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            if (e.entryId() == badTopic.id()) {
                throw new IllegalArgumentException("no such topic");
            }
            throw new IOException("broker unavailable");
        });
        ObservedClaimStore store = new ObservedClaimStore(f.newClaimStore());
        OutboxDrain drain = f.register(f.drainOn(store, provider, DrainFixture.options("worker-a").build())
                .errorClassifier(ErrorClassifier.permanentFor(IllegalArgumentException.class)).build());

        CycleResult result = drain.runOnce();

        assertThat(result).isEqualTo(new CycleResult(2, 0, 0, 1, 1, 0, 0, 0));
        assertThat(f.row(badTopic.id()).status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(f.row(badTopic.id()).deadLetterReason()).contains("permanent error: java.lang.IllegalArgumentException: no such topic");
        assertThat(f.row(badTopic.id() + 1).status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(store.claimCalls).as("one claim call per batch").hasValue(1);
        assertThat(store.completeAllCalls).as("one completeAll per batch").hasValue(1);
    }
}
