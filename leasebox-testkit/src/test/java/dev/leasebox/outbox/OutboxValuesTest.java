package dev.leasebox.outbox;

import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The outbox value types keep their invariants, and the shared transition and refusal rules hold. */
class OutboxValuesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static OutboxEntry.Builder entry() {
        return OutboxEntry.builder().id(1).idempotencyKey("k").type("t").createdAt(T0);
    }

    @Test
    void aClaimRequestRefusesABlankOwnerABatchOutsideItsRangeAndANonPositiveLease() {
        Duration lease = Duration.ofSeconds(30);
        assertThatThrownBy(() -> new ClaimRequest(" ", 10, lease)).hasMessageContaining("owner");
        assertThatThrownBy(() -> new ClaimRequest("w", 0, lease)).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> new ClaimRequest("w", ClaimRequest.MAX_BATCH_SIZE + 1, lease)).hasMessageContaining("10000");
        assertThatThrownBy(() -> new ClaimRequest("w", 10, Duration.ZERO)).hasMessageContaining("leaseDuration");
        assertThat(new ClaimRequest("w", ClaimRequest.MAX_BATCH_SIZE, lease).batchSize()).isEqualTo(10_000);
    }

    @Test
    void anEntryRefusesAClaimTokenAboveItsHighWaterAndNegativeCounters() {
        assertThatThrownBy(() -> entry().claimToken(5L).fenceHighWater(4).build()).hasMessageContaining("high-water");
        assertThatThrownBy(() -> entry().attemptCount(-1).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> entry().claimAttemptCount(-1).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> entry().fenceHighWater(-1).build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEntryRequiresItsKeyTypeAndCreationTime() {
        assertThatThrownBy(() -> OutboxEntry.builder().type("t").createdAt(T0).build()).hasMessageContaining("idempotencyKey");
        assertThatThrownBy(() -> OutboxEntry.builder().idempotencyKey("k").createdAt(T0).build()).hasMessageContaining("type");
        assertThatThrownBy(() -> OutboxEntry.builder().idempotencyKey("k").type("t").build()).hasMessageContaining("createdAt");
    }

    @Test
    void claimingRaisesTheHighWaterAndClearingTheClaimKeepsIt() {
        OutboxEntry claimed = entry().fenceHighWater(3).claim("w", 9, T0, T0.plusSeconds(30), 2).build();

        assertThat(claimed.fenceHighWater()).isEqualTo(9);
        assertThat(claimed.isClaimedAt(T0.plusSeconds(29))).isTrue();
        assertThat(claimed.isClaimedAt(T0.plusSeconds(30))).isFalse();
        OutboxEntry cleared = claimed.toBuilder().clearClaim().build();
        assertThat(cleared.claimToken()).isEmpty();
        assertThat(cleared.claimOwner()).isEmpty();
        assertThat(cleared.fenceHighWater()).isEqualTo(9);
        assertThat(cleared.claimAttemptCount()).isEqualTo(2);
    }

    @Test
    void eligibilityNeedsTheSelectedKindDueNessAndNoUnexpiredClaim() {
        OutboxEntry deferred = entry().status(EmissionStatus.DEFERRED).nextAttemptAt(T0.plusSeconds(10)).build();
        assertThat(deferred.isEligibleAt(ClaimSelection.PENDING, T0)).isFalse();
        assertThat(deferred.isEligibleAt(ClaimSelection.PENDING, T0.plusSeconds(10))).isTrue();
        assertThat(deferred.isEligibleAt(ClaimSelection.RETRY_READY, T0.plusSeconds(10))).isFalse();
        OutboxEntry claimed = entry().claim("w", 1, T0, T0.plusSeconds(5), 1).build();
        assertThat(claimed.isEligibleAt(ClaimSelection.ELIGIBLE, T0)).isFalse();
        assertThat(claimed.isEligibleAt(ClaimSelection.ELIGIBLE, T0.plusSeconds(5))).isTrue();
        for (EmissionStatus status : new EmissionStatus[] {EmissionStatus.FAILED, EmissionStatus.DELIVERED, EmissionStatus.DEAD_LETTERED}) {
            assertThat(entry().status(status).build().isEligibleAt(ClaimSelection.ELIGIBLE, T0)).as("%s", status).isFalse();
        }
    }

    @Test
    void anEntryCopiesItsPayloadInAndOut() {
        byte[] payload = "abc".getBytes(StandardCharsets.UTF_8);
        OutboxEntry e = entry().payload(payload).build();
        payload[0] = 'x';
        e.payload()[1] = 'y';

        assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo("abc");
    }

    @Test
    void aMessageRefusesBlankTextAndGetsAFreshIdempotencyKeyByDefault() {
        assertThatThrownBy(() -> OutboxMessage.of(" ", new byte[0])).hasMessageContaining("type");
        assertThatThrownBy(() -> OutboxMessage.of("t", new byte[0]).withIdempotencyKey("")).hasMessageContaining("idempotencyKey");
        assertThatThrownBy(() -> OutboxMessage.of("t", new byte[0]).withPartitionKey(" ")).hasMessageContaining("partitionKey");
        assertThatThrownBy(() -> OutboxMessage.of("t", new byte[0]).withHeader("", "v")).hasMessageContaining("header name");
        assertThat(OutboxMessage.of("t", new byte[0]).idempotencyKey())
                .isNotEqualTo(OutboxMessage.of("t", new byte[0]).idempotencyKey());
    }

    @Test
    void aMessageIsImmutableAcrossItsWithers() {
        byte[] payload = {1, 2};
        OutboxMessage base = OutboxMessage.of("t", payload);
        payload[0] = 9;
        OutboxMessage withHeader = base.withHeader("a", "1").withPartitionKey("p");

        assertThat(base.payload()).containsExactly(1, 2);
        assertThat(base.headers()).isEmpty();
        assertThat(base.partitionKey()).isEmpty();
        assertThat(withHeader.headers()).isEqualTo(Map.of("a", "1"));
        assertThat(withHeader.partitionKey()).contains("p");
        assertThat(withHeader.idempotencyKey()).isEqualTo(base.idempotencyKey());
        assertThatThrownBy(() -> withHeader.headers().put("b", "2")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void refusalsAreCheckedTerminalFirstThenNewerTokenThenStaleThenStatus() {
        OutboxEntry delivered = entry().status(EmissionStatus.DELIVERED).fenceHighWater(9).build();
        OutboxEntry claimedBy7 = entry().claim("w", 7, T0, T0.plusSeconds(5), 1).build();
        OutboxEntry failedBy7 = claimedBy7.toBuilder().status(EmissionStatus.FAILED).build();

        assertThat(CompletionOutcome.refusalFor(delivered, 9)).get().isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(CompletionOutcome.refusalFor(claimedBy7, 6)).get().isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(CompletionOutcome.refusalFor(claimedBy7, 8)).get().isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(CompletionOutcome.refusalFor(entry().build(), 1)).get().isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(CompletionOutcome.refusalFor(failedBy7, 7)).get().isInstanceOf(CompletionOutcome.NotCompletable.class);
        assertThat(CompletionOutcome.refusalFor(claimedBy7, 7)).isEmpty();
        assertThat(new CompletionOutcome.Completed(claimedBy7).isCompleted()).isTrue();
        assertThat(new CompletionOutcome.Missing(1, 2).isCompleted()).isFalse();
    }

    @Test
    void savedCompletionsTakeEmissionStateButNeverTheMessageOrClaimFields() {
        OutboxEntry current = entry().claim("w", 7, T0, T0.plusSeconds(5), 1).build();
        OutboxEntry holderCopy = OutboxEntry.builder().id(1).idempotencyKey("other").type("other").createdAt(T0)
                .status(EmissionStatus.DEFERRED).nextAttemptAt(T0.plusSeconds(60)).attemptCount(2)
                .claim("intruder", 8, T0, T0.plusSeconds(99), 5).build();

        OutboxEntry saved = Completion.apply(new Completion.Saved(holderCopy), current);

        assertThat(saved.status()).isEqualTo(EmissionStatus.DEFERRED);
        assertThat(saved.attemptCount()).isEqualTo(2);
        assertThat(saved.nextAttemptAt()).contains(T0.plusSeconds(60));
        assertThat(saved.idempotencyKey()).isEqualTo("k");
        assertThat(saved.type()).isEqualTo("t");
        assertThat(saved.claimToken()).isEmpty();
        assertThat(saved.fenceHighWater()).isEqualTo(7);
        assertThat(saved.claimAttemptCount()).isEqualTo(1);
    }

    @Test
    void aFailedCompletionWithoutRetryParksAndWithRetrySchedules() {
        OutboxEntry current = entry().claim("w", 7, T0, T0.plusSeconds(5), 1).build();
        EmissionError error = EmissionError.retryable("E", "down");

        assertThat(Completion.apply(new Completion.Failed(error, Optional.empty()), current).status())
                .isEqualTo(EmissionStatus.FAILED);
        OutboxEntry retry = Completion.apply(new Completion.Failed(error, Optional.of(T0.plusSeconds(9))), current);
        assertThat(retry.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(retry.nextAttemptAt()).contains(T0.plusSeconds(9));
        assertThat(retry.lastError()).contains("E: down");
    }

    @Test
    void saveClaimRefusesAnEntryThatIsNotTheClaimedOne() {
        InMemoryOutboxStore store = new InMemoryOutboxStore(MutableClock.startingAt2026());
        store.enqueue(OutboxMessage.of("t", new byte[0]));
        OutboxEntry other = store.enqueue(OutboxMessage.of("t", new byte[0]));
        OutboxClaim claim = store.claimPending(new ClaimRequest("w", 1, Duration.ofSeconds(30))).get(0);

        assertThatThrownBy(() -> store.saveClaim(claim, other)).hasMessageContaining("not the claimed entry");
        assertThat(store.find(claim.entryId()).orElseThrow().claimToken()).hasValue(claim.token());
    }

    @Test
    void claimsAndGrantsRefuseNonPositiveTokens() {
        OutboxEntry e = entry().build();
        assertThatThrownBy(() -> new OutboxClaim(e, "w", 0, T0, T0, 1)).hasMessageContaining("token");
        assertThatThrownBy(() -> new ClaimGrant(1, "w", 0, T0, T0)).hasMessageContaining("token");
        assertThat(new OutboxClaim(e, "w", 3, T0, T0, 1).withExpiresAt(T0.plusSeconds(1)).expiresAt())
                .isEqualTo(T0.plusSeconds(1));
    }

    @Test
    void selectionsPickTheirStatusKinds() {
        assertThat(ClaimSelection.PENDING.selects(EmissionStatus.DEFERRED)).isTrue();
        assertThat(ClaimSelection.PENDING.selects(EmissionStatus.RETRYABLE_FAILURE)).isFalse();
        assertThat(ClaimSelection.RETRY_READY.selects(EmissionStatus.RETRYABLE_FAILURE)).isTrue();
        assertThat(ClaimSelection.ELIGIBLE.selects(EmissionStatus.PENDING)).isTrue();
        assertThat(ClaimSelection.ELIGIBLE.selects(EmissionStatus.FAILED)).isFalse();
    }
}
