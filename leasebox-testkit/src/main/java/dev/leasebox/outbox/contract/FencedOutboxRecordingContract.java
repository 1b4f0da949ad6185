package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimRecording.Reason;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Recorded claims in the fenced-store contract: {@code recordClaims} writes a grant only when its fence is
 * strictly above the row's high-water mark and the row is eligible, says why it refused the others (with the
 * mark), and handles a mixed batch in one call; extension and completion are token-checked. Backends extend
 * {@link FencedOutboxStoreContract}, which inherits these tests.
 */
public abstract class FencedOutboxRecordingContract extends FencedOutboxSelectionContract {

    @Test
    void recordClaimsWritesTheGrantAsTheRowsClaimAndRaisesTheHighWater() {
        OutboxEntry entry = enqueue("recorded");
        Instant claimedAt = now();

        OutboxClaim claim = record(entry.id(), "w1", 42);

        assertThat(claim.owner()).isEqualTo("w1");
        assertThat(claim.token()).isEqualTo(42);
        assertThat(claim.claimedAt()).isEqualTo(claimedAt);
        assertThat(claim.expiresAt()).isEqualTo(claimedAt.plus(LEASE));
        assertThat(claim.claimAttemptCount()).isEqualTo(1);
        OutboxEntry row = row(entry.id());
        assertThat(row.claimOwner()).contains("w1");
        assertThat(row.claimToken()).hasValue(42);
        assertThat(row.claimedAt()).contains(claimedAt);
        assertThat(row.claimExpiresAt()).contains(claimedAt.plus(LEASE));
        assertThat(row.claimAttemptCount()).isEqualTo(1);
        assertThat(row.fenceHighWater()).isEqualTo(42);
        assertThat(store.highestFenceHighWater()).isEqualTo(42);
    }

    @Test
    void recordClaimsRefusesAFenceEqualToOrBelowTheHighWaterNamingTheMark() {
        OutboxEntry entry = enqueue("fenced");
        OutboxClaim first = record(entry.id(), "w1", 10);
        assertThat(store.complete(first, new Completion.Released("back")).isCompleted()).isTrue();
        OutboxEntry before = row(entry.id());

        for (long stale : new long[] {10, 9, 1}) {
            ClaimRecording recording = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(grant(entry.id(), "w2", stale)));
            assertThat(recording.recorded()).as("fence %d", stale).isEmpty();
            assertThat(recording.refused()).singleElement().satisfies(r -> {
                assertThat(r.reason()).isEqualTo(Reason.FENCE_NOT_ABOVE_HIGH_WATER);
                assertThat(r.fenceHighWater()).isEqualTo(10);
                assertThat(r.grant().token()).isEqualTo(stale);
            });
        }

        assertThat(row(entry.id())).as("refusals write nothing").isEqualTo(before);
        OutboxClaim next = record(entry.id(), "w2", 11);
        assertThat(next.claimAttemptCount()).isEqualTo(2);
    }

    @Test
    void recordClaimsRefusesRowsThatAreNotEligibleAndRowsThatDoNotExist() {
        OutboxEntry held = enqueue("held");
        record(held.id(), "w1", 5);
        OutboxEntry delivered = enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        OutboxEntry later = enqueueIn("later", EmissionStatus.DEFERRED, now().plusSeconds(60));
        OutboxEntry retry = enqueueIn("retry", EmissionStatus.RETRYABLE_FAILURE, now());

        ClaimRecording recording = store.recordClaims(ClaimSelection.PENDING, List.of(
                grant(held.id(), "w2", 100), grant(delivered.id(), "w2", 101), grant(later.id(), "w2", 102),
                grant(retry.id(), "w2", 103), grant(987_654_321L, "w2", 104)));

        assertThat(recording.recorded()).isEmpty();
        assertThat(recording.refused()).extracting(r -> r.grant().entryId(), ClaimRecording.Refusal::reason)
                .containsExactlyInAnyOrder(
                        tuple(held.id(), Reason.NOT_ELIGIBLE),
                        tuple(delivered.id(), Reason.NOT_ELIGIBLE),
                        tuple(later.id(), Reason.NOT_ELIGIBLE),
                        tuple(retry.id(), Reason.NOT_ELIGIBLE),
                        tuple(987_654_321L, Reason.MISSING));
        assertThat(row(held.id()).claimToken()).as("the holder keeps its claim").hasValue(5);
        assertThat(row(delivered.id()).claimToken()).isEmpty();
        assertThat(row(retry.id()).fenceHighWater()).as("a refused grant does not raise the mark").isZero();
    }

    @Test
    void recordClaimsRecordsTheAcceptableGrantsOfAMixedBatchInOneCall() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        OutboxEntry c = enqueue("c");
        store.complete(record(b.id(), "w0", 50), new Completion.Released("back"));

        ClaimRecording recording = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(
                grant(a.id(), "w1", 20), grant(b.id(), "w1", 21), grant(c.id(), "w1", 22), grant(987_654_321L, "w1", 23)));

        assertThat(recording.recorded()).extracting(OutboxClaim::entryId).containsExactlyInAnyOrder(a.id(), c.id());
        assertThat(recording.refused()).extracting(ClaimRecording.Refusal::reason)
                .containsExactlyInAnyOrder(Reason.FENCE_NOT_ABOVE_HIGH_WATER, Reason.MISSING);
        assertThat(row(a.id()).claimToken()).hasValue(20);
        assertThat(row(c.id()).claimToken()).hasValue(22);
        assertThat(row(b.id()).claimToken()).isEmpty();
        assertThat(store.highestFenceHighWater()).isEqualTo(50);
    }

    @Test
    void anExpiredClaimIsReplacedByAGrantWithAHigherFence() {
        OutboxEntry entry = enqueue("expired");
        record(entry.id(), "w1", 7);
        clock.advance(LEASE.plusSeconds(1));

        OutboxClaim next = record(entry.id(), "w2", 8);

        assertThat(next.claimAttemptCount()).isEqualTo(2);
        assertThat(row(entry.id()).claimOwner()).contains("w2");
        assertThat(row(entry.id()).fenceHighWater()).isEqualTo(8);
    }

    @Test
    void extendClaimsMovesOnlyClaimsWhoseTokenStillMatches() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        OutboxClaim held = record(a.id(), "w1", 30);
        OutboxClaim old = record(b.id(), "w1", 31);
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim current = record(b.id(), "w2", 32);
        Instant newExpiry = now().plus(LEASE);

        List<OutboxClaim> extended = store.extendClaims(List.of(held, old), newExpiry);

        assertThat(extended).singleElement().satisfies(c -> {
            assertThat(c.entryId()).isEqualTo(a.id());
            assertThat(c.expiresAt()).isEqualTo(newExpiry);
        });
        assertThat(row(a.id()).claimExpiresAt()).contains(newExpiry);
        assertThat(row(b.id()).claimExpiresAt()).contains(current.expiresAt());
        assertThat(row(b.id()).claimToken()).hasValue(32);
    }

    @Test
    void completionIsWrittenOnlyWithTheRowsCurrentToken() {
        OutboxEntry entry = enqueue("complete");
        OutboxClaim old = record(entry.id(), "w1", 3);
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim current = record(entry.id(), "w2", 4);

        CompletionOutcome stale = store.complete(old, new Completion.Delivered(EmissionResult.at(now())));
        assertThat(stale).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(row(entry.id()).status()).isEqualTo(EmissionStatus.PENDING);

        CompletionOutcome done = store.complete(current, new Completion.Delivered(EmissionResult.at(now())));
        assertThat(done).isInstanceOf(CompletionOutcome.Completed.class);
        OutboxEntry row = row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.claimToken()).isEmpty();
        assertThat(row.fenceHighWater()).isEqualTo(4);
    }

    @Test
    void completeAllIsTokenCheckedPerClaimInTheOrderGiven() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        OutboxClaim good = record(a.id(), "w1", 60);
        OutboxClaim held = record(b.id(), "w1", 61);
        OutboxClaim forged = new OutboxClaim(held.entry(), "w1", 999, held.claimedAt(), held.expiresAt(), 1);

        List<CompletionOutcome> outcomes = store.completeAll(List.of(
                new ClaimCompletion(forged, new Completion.Delivered(EmissionResult.at(now()))),
                new ClaimCompletion(good, new Completion.Delivered(EmissionResult.at(now())))));

        assertThat(outcomes.get(0)).isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(outcomes.get(1)).isInstanceOf(CompletionOutcome.Completed.class);
        assertThat(row(b.id()).claimToken()).hasValue(61);
        assertThat(row(a.id()).status()).isEqualTo(EmissionStatus.DELIVERED);
    }

    @Test
    void anEmptyFencedOutboxHasHighWaterZeroAndNoCandidates() {
        assertThat(store.highestFenceHighWater()).isZero();
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1))).isEmpty();
        assertThat(store.recordClaims(ClaimSelection.ELIGIBLE, List.of()).recorded()).isEmpty();
        assertThat(store.extendClaims(List.of(), now())).isEmpty();
    }
}
