package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completing half of the claim-store contract: every transition a claim holder can write and
 * every refusal of {@link CompletionOutcome}. Backends extend {@link OutboxClaimStoreContract},
 * which inherits these tests.
 */
public abstract class OutboxClaimCompletionContract extends OutboxClaimSelectionContract {

    protected static final EmissionError BROKER_DOWN = EmissionError.retryable("IOException", "broker unreachable");

    protected final OutboxClaim claimOne(String name, String owner) {
        OutboxEntry entry = enqueue(name);
        OutboxClaim claim = store.claimPending(request(owner, 1)).get(0);
        assertThat(claim.entryId()).isEqualTo(entry.id());
        return claim;
    }

    /** Asserts a completion was written and returns the row as the outcome reports it. */
    protected final OutboxEntry completed(CompletionOutcome outcome) {
        assertThat(outcome).isInstanceOf(CompletionOutcome.Completed.class);
        OutboxEntry reported = ((CompletionOutcome.Completed) outcome).entry();
        assertThat(reported).isEqualTo(row(reported.id()));
        return reported;
    }

    @Test
    void markClaimDeliveredLandsDeliveredCountsTheAttemptAndClearsTheClaim() {
        OutboxClaim claim = claimOne("deliver", "w1");
        Instant deliveredAt = now();

        OutboxEntry row = completed(store.markClaimDelivered(claim, EmissionResult.at(deliveredAt)));

        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.deliveredAt()).contains(deliveredAt);
        assertClaimCleared(claim.entryId(), claim.token());
    }

    @Test
    void markClaimFailedWithARetryTimeLandsRetryableFailureDueThen() {
        OutboxClaim claim = claimOne("retry", "w1");
        Instant retryAt = now().plusSeconds(90);

        OutboxEntry row = completed(store.markClaimFailed(claim, BROKER_DOWN, retryAt));

        assertThat(row.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.lastError()).contains(BROKER_DOWN.describe());
        assertThat(row.nextAttemptAt()).contains(retryAt);
        assertClaimCleared(claim.entryId(), claim.token());
        assertThat(store.claimRetryReady(request("w2", 10))).as("not yet due").isEmpty();
        clock.advance(java.time.Duration.ofSeconds(90));
        assertThat(store.claimRetryReady(request("w2", 10))).extracting(OutboxClaim::entryId)
                .containsExactly(claim.entryId());
    }

    @Test
    void markClaimFailedWithoutARetryTimeParksTheRowAsFailed() {
        OutboxClaim claim = claimOne("park", "w1");

        OutboxEntry row = completed(store.markClaimFailed(claim, BROKER_DOWN));

        assertThat(row.status()).isEqualTo(EmissionStatus.FAILED);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.lastError()).contains(BROKER_DOWN.describe());
        assertClaimCleared(claim.entryId(), claim.token());
        clock.advance(LEASE.multipliedBy(10));
        assertThat(store.claim(dev.leasebox.outbox.ClaimSelection.ELIGIBLE, request("w2", 10))).isEmpty();
    }

    @Test
    void markClaimDeadLetteredLandsDeadLetteredWithReasonAndError() {
        OutboxClaim claim = claimOne("dead", "w1");
        EmissionError error = EmissionError.permanent("400", "malformed envelope");

        OutboxEntry row = completed(store.markClaimDeadLettered(claim, error, "max attempts reached"));

        assertThat(row.status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.deadLetterReason()).contains("max attempts reached");
        assertThat(row.lastError()).contains(error.describe());
        assertClaimCleared(claim.entryId(), claim.token());
    }

    @Test
    void saveClaimWritesDeferredUntilATimeAndClearsTheClaim() {
        OutboxClaim claim = claimOne("defer", "w1");
        Instant until = now().plusSeconds(45);
        OutboxEntry deferred = claim.entry().toBuilder().status(EmissionStatus.DEFERRED).nextAttemptAt(until).build();

        OutboxEntry row = completed(store.saveClaim(claim, deferred));

        assertThat(row.status()).isEqualTo(EmissionStatus.DEFERRED);
        assertThat(row.nextAttemptAt()).contains(until);
        assertThat(row.attemptCount()).as("a deferral is not an attempt").isZero();
        assertClaimCleared(claim.entryId(), claim.token());
        assertThat(store.claimPending(request("w2", 10))).as("deferred, not yet due").isEmpty();
        clock.advance(java.time.Duration.ofSeconds(45));
        assertThat(store.claimPending(request("w2", 10))).hasSize(1);
    }

    @Test
    void releaseClaimKeepsStatusAndAttemptsAndMakesTheRowClaimableAtOnce() {
        OutboxEntry entry = enqueueIn("release", EmissionStatus.RETRYABLE_FAILURE, now());
        outboxStore().save(row(entry.id()).toBuilder().attemptCount(3).lastError("E: earlier").build());
        OutboxClaim claim = store.claimRetryReady(request("w1", 1)).get(0);

        OutboxEntry row = completed(store.releaseClaim(claim, "shutting down"));

        assertThat(row.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(row.attemptCount()).isEqualTo(3);
        assertThat(row.lastError()).contains("E: earlier");
        assertClaimCleared(claim.entryId(), claim.token());
        OutboxClaim next = store.claimRetryReady(request("w2", 1)).get(0);
        assertThat(next.token()).isGreaterThan(claim.token());
    }

    @Test
    void completingAReleasedClaimIsRefusedAsStaleTokenAndChangesNothing() {
        OutboxClaim claim = claimOne("stale", "w1");
        completed(store.releaseClaim(claim, "giving it back"));
        OutboxEntry before = row(claim.entryId());

        CompletionOutcome outcome = store.markClaimDelivered(claim, EmissionResult.at(now()));

        assertThat(outcome).isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(outcome.isCompleted()).isFalse();
        assertThat(row(claim.entryId())).isEqualTo(before);
    }

    @Test
    void completingWithAWrongTokenIsRefusedAsStaleTokenAndTheRealClaimStands() {
        OutboxClaim claim = claimOne("wrong-token", "w1");
        OutboxClaim forged = new OutboxClaim(claim.entry(), claim.owner(), claim.token() + 1_000,
                claim.claimedAt(), claim.expiresAt(), claim.claimAttemptCount());

        CompletionOutcome outcome = store.markClaimDelivered(forged, EmissionResult.at(now()));

        assertThat(outcome).isInstanceOf(CompletionOutcome.StaleToken.class);
        assertClaimedBy(claim);
        assertThat(row(claim.entryId()).status()).isEqualTo(EmissionStatus.PENDING);
        completed(store.markClaimDelivered(claim, EmissionResult.at(now())));
    }

    @Test
    void theOldHolderAfterExpiryAndReclaimIsRefusedAsReclaimedAndTheNewHolderCompletes() {
        OutboxClaim old = claimOne("reclaimed", "w1");
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim current = store.claimPending(request("w2", 1)).get(0);

        CompletionOutcome outcome = store.markClaimDelivered(old, EmissionResult.at(now()));

        assertThat(outcome).isInstanceOf(CompletionOutcome.Reclaimed.class);
        if (claimsAreWrittenToRows()) {
            assertThat(((CompletionOutcome.Reclaimed) outcome).current().claimToken()).hasValue(current.token());
        }
        assertClaimedBy(current);
        assertThat(row(current.entryId()).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(current.entryId()).attemptCount()).isZero();
        OutboxEntry row = completed(store.markClaimDelivered(current, EmissionResult.at(now())));
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
    }

    @Test
    void completingATerminalRowAgainIsRefusedAsAlreadyTerminal() {
        OutboxClaim delivered = claimOne("delivered", "w1");
        completed(store.markClaimDelivered(delivered, EmissionResult.at(now())));
        OutboxClaim dead = claimOne("dead", "w1");
        completed(store.markClaimDeadLettered(dead, BROKER_DOWN, "gave up"));

        assertThat(store.markClaimDelivered(delivered, EmissionResult.at(now())))
                .isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(store.markClaimFailed(dead, BROKER_DOWN, now()))
                .isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(row(delivered.entryId()).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row(dead.entryId()).status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
    }

    @Test
    void completingAClaimedRowThatWasParkedAsFailedIsRefusedAsNotCompletable() {
        OutboxClaim claim = claimOne("parked", "w1");
        outboxStore().save(row(claim.entryId()).toBuilder().status(EmissionStatus.FAILED).build());

        CompletionOutcome outcome = store.markClaimDelivered(claim, EmissionResult.at(now()));

        assertThat(outcome).isInstanceOf(CompletionOutcome.NotCompletable.class);
        assertThat(row(claim.entryId()).status()).isEqualTo(EmissionStatus.FAILED);
        assertThat(row(claim.entryId()).attemptCount()).isZero();
    }

    @Test
    void completingAClaimOnAMissingRowIsRefusedAsMissing() {
        CompletionOutcome outcome = store.markClaimDelivered(claimOnMissingRow(987_654_321L, 5), EmissionResult.at(now()));

        assertThat(outcome).isEqualTo(new CompletionOutcome.Missing(5, 987_654_321L));
    }
}
