package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of a {@link FencedOutboxStore}, the table under an external lease manager: extend this
 * class (only this one) and implement {@link #newFencedStore(MutableClock)}, returning a store over an
 * empty outbox whose "now" is the given clock.
 *
 * <p>What it proves: candidate search reads only and returns only eligible rows; {@code recordClaims}
 * writes a grant only when its fence is strictly above the row's high-water mark and the row is
 * eligible, says why it refused the others (with the mark), and handles a mixed batch in one call;
 * extension and completion are token-checked; the lean mode's fenced completion
 * ({@code completeAllFenced}) needs no claim record, writes only a fence strictly above the row's
 * high-water mark, raises the mark, and refuses a stale holder once a newer one has written — but not
 * before (that weaker guarantee is pinned here too, so that it cannot change unnoticed).
 *
 * <p>It inherits the candidate search tests of {@link FencedOutboxSelectionContract} and the recorded-claim
 * tests of {@link FencedOutboxRecordingContract}, and adds the lean mode's fenced completion.
 */
public abstract class FencedOutboxStoreContract extends FencedOutboxRecordingContract {

    /** What a lean holder presents: the row as its candidate read saw it, under the lease's fence; nothing written. */
    protected final OutboxClaim leanClaim(long entryId, String owner, long fence) {
        OutboxEntry read = row(entryId);
        int attempt = read.claimAttemptCount() + 1;
        OutboxEntry asClaimed = read.toBuilder().claim(owner, fence, now(), now().plus(LEASE), attempt).build();
        return new OutboxClaim(asClaimed, owner, fence, now(), now().plus(LEASE), attempt);
    }

    private CompletionOutcome completeFenced(OutboxClaim claim, Completion completion) {
        List<CompletionOutcome> outcomes = store.completeAllFenced(List.of(new ClaimCompletion(claim, completion)));
        assertThat(outcomes).hasSize(1);
        return outcomes.get(0);
    }

    private static Completion delivered() {
        return new Completion.Delivered(EmissionResult.at(Instant.parse("2026-01-01T00:00:00Z")));
    }

    private Completion retryLater() {
        return new Completion.Failed(EmissionError.retryable("down", "provider down"),
                java.util.Optional.of(now().plusSeconds(60)));
    }

    @Test
    void aFencedCompletionNeedsNoClaimRecordAndRaisesTheHighWaterToItsFence() {
        OutboxEntry entry = enqueue("lean");
        OutboxClaim lean = leanClaim(entry.id(), "w1", 42);
        assertThat(row(entry.id()).claimToken()).as("a lean claim writes nothing").isEmpty();

        CompletionOutcome outcome = completeFenced(lean, delivered());

        assertThat(outcome).isInstanceOf(CompletionOutcome.Completed.class);
        OutboxEntry row = row(entry.id());
        assertThat(((CompletionOutcome.Completed) outcome).entry()).isEqualTo(row);
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.attemptCount()).isEqualTo(1);
        assertThat(row.fenceHighWater()).isEqualTo(42);
        assertThat(row.claimToken()).isEmpty();
        assertThat(row.claimOwner()).isEmpty();
        assertThat(row.claimExpiresAt()).isEmpty();
        assertThat(row.claimAttemptCount()).as("counts the claims that completed").isEqualTo(1);
        assertThat(store.highestFenceHighWater()).isEqualTo(42);
    }

    @Test
    void aFencedCompletionAtOrBelowTheHighWaterIsRefusedAndChangesNothing() {
        OutboxEntry entry = enqueue("fenced");
        assertThat(completeFenced(leanClaim(entry.id(), "w1", 10), new Completion.Released("back")).isCompleted()).isTrue();
        OutboxEntry before = row(entry.id());
        assertThat(before.fenceHighWater()).isEqualTo(10);

        assertThat(completeFenced(leanClaim(entry.id(), "w2", 10), delivered()))
                .as("an equal fence: that fence wrote already").isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(completeFenced(leanClaim(entry.id(), "w2", 9), delivered()))
                .as("a lower fence: a newer one wrote").isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(row(entry.id())).as("refusals write nothing").isEqualTo(before);

        assertThat(completeFenced(leanClaim(entry.id(), "w2", 11), delivered()).isCompleted()).isTrue();
        assertThat(row(entry.id()).fenceHighWater()).isEqualTo(11);
    }

    @Test
    void aStaleLeanHoldersCompletionIsRefusedOnceANewerHolderHasWritten() {
        OutboxEntry entry = enqueue("stale");
        OutboxClaim stale = leanClaim(entry.id(), "w1", 5);
        clock.advance(LEASE.plusSeconds(1)); // w1's lease expired; the coordinator granted the key again
        OutboxClaim newer = leanClaim(entry.id(), "w2", 6);
        assertThat(completeFenced(newer, retryLater()).isCompleted()).isTrue();
        OutboxEntry afterNewer = row(entry.id());

        CompletionOutcome late = completeFenced(stale, delivered());

        assertThat(late).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(row(entry.id())).as("the newer holder's outcome stands").isEqualTo(afterNewer);
        assertThat(afterNewer.status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(afterNewer.fenceHighWater()).isEqualTo(6);
    }

    @Test
    void aStaleLeanHoldersCompletionIsAcceptedWhileNoNewerHolderHasWritten() {
        // The guarantee lean mode gives up: with no claim record, the row cannot know that a newer
        // holder exists until that holder writes. The stale holder did emit, so its outcome is true;
        // the newer holder's emission is the duplicate, and its terminal completion is then refused.
        OutboxEntry entry = enqueue("window");
        OutboxClaim stale = leanClaim(entry.id(), "w1", 5);
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim newer = leanClaim(entry.id(), "w2", 6);

        assertThat(completeFenced(stale, delivered()).isCompleted()).isTrue();
        assertThat(completeFenced(newer, delivered())).isInstanceOf(CompletionOutcome.AlreadyTerminal.class);

        OutboxEntry row = row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.attemptCount()).as("finalized once").isEqualTo(1);
        assertThat(row.fenceHighWater()).isEqualTo(5);
    }

    @Test
    void aFencedCompletionIsRefusedForTerminalParkedAndMissingRows() {
        OutboxEntry delivered = enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        OutboxEntry dead = enqueueIn("dead", EmissionStatus.DEAD_LETTERED, null);
        OutboxEntry parked = enqueueIn("parked", EmissionStatus.FAILED, null);
        List<OutboxEntry> before = List.of(row(delivered.id()), row(dead.id()), row(parked.id()));
        OutboxClaim missing = new OutboxClaim(row(parked.id()).toBuilder().id(987_654_321L).build(), "w1", 70,
                now(), now().plus(LEASE), 1);

        List<CompletionOutcome> outcomes = store.completeAllFenced(List.of(
                new ClaimCompletion(leanClaim(delivered.id(), "w1", 71), delivered()),
                new ClaimCompletion(leanClaim(dead.id(), "w1", 72), delivered()),
                new ClaimCompletion(leanClaim(parked.id(), "w1", 73), delivered()),
                new ClaimCompletion(missing, delivered())));

        assertThat(outcomes.get(0)).isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(outcomes.get(1)).isInstanceOf(CompletionOutcome.AlreadyTerminal.class);
        assertThat(outcomes.get(2)).isInstanceOf(CompletionOutcome.NotCompletable.class);
        assertThat(outcomes.get(3)).isInstanceOf(CompletionOutcome.Missing.class);
        assertThat(List.of(row(delivered.id()), row(dead.id()), row(parked.id()))).isEqualTo(before);
    }

    @Test
    void aRecordedClaimRefusesAnOlderFenceButNotANewerOne() {
        // Workers of both modes on one outbox: the row's high-water mark orders them.
        OutboxEntry entry = enqueue("mixed");
        OutboxClaim recorded = record(entry.id(), "recorded-worker", 20);

        assertThat(completeFenced(leanClaim(entry.id(), "lean-worker", 19), delivered()))
                .isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(row(entry.id()).claimToken()).hasValue(20);

        clock.advance(LEASE.plusSeconds(1));
        assertThat(completeFenced(leanClaim(entry.id(), "lean-worker", 21), new Completion.Released("back")).isCompleted())
                .isTrue();
        assertThat(row(entry.id()).claimToken()).as("the fenced completion clears the old claim").isEmpty();
        assertThat(store.complete(recorded, delivered()))
                .as("the recorded holder's late completion").isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(row(entry.id()).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(entry.id()).fenceHighWater()).isEqualTo(21);
    }

    @Test
    void aFencedCompletionNeverClearsAnotherHoldersUnexpiredRecordedClaim() {
        // A recorded worker holds the row; a lean worker of another fleet presents a higher fence. Writing
        // would clear a live claim whose holder is still emitting and will complete by token.
        OutboxEntry entry = enqueue("live-claim");
        OutboxClaim recorded = record(entry.id(), "recorded-worker", 20);

        CompletionOutcome lean = completeFenced(leanClaim(entry.id(), "lean-worker", 21), delivered());
        assertThat(lean.isCompleted()).as("a fenced completion over an unexpired recorded claim").isFalse();
        assertThat(row(entry.id()).claimToken()).hasValue(20);
        assertThat(row(entry.id()).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(entry.id()).fenceHighWater()).isEqualTo(20);
        assertThat(store.complete(recorded, delivered()).isCompleted()).as("the live holder completes").isTrue();
    }

    @Test
    void completeAllFencedDecidesEachCompletionInTheOrderGiven() {
        OutboxEntry a = enqueue("a");
        OutboxEntry b = enqueue("b");
        OutboxEntry c = enqueue("c");
        completeFenced(leanClaim(b.id(), "w0", 50), new Completion.Released("back"));
        OutboxClaim onA = leanClaim(a.id(), "w1", 60);

        List<CompletionOutcome> outcomes = store.completeAllFenced(List.of(
                new ClaimCompletion(onA, delivered()),
                new ClaimCompletion(leanClaim(b.id(), "w1", 49), delivered()),
                new ClaimCompletion(leanClaim(c.id(), "w1", 61), retryLater()),
                new ClaimCompletion(onA, new Completion.Released("twice"))));

        assertThat(outcomes.get(0)).isInstanceOf(CompletionOutcome.Completed.class);
        assertThat(outcomes.get(1)).isInstanceOf(CompletionOutcome.Reclaimed.class);
        assertThat(outcomes.get(2)).isInstanceOf(CompletionOutcome.Completed.class);
        assertThat(outcomes.get(3)).as("a second completion under the same fence")
                .isNotInstanceOf(CompletionOutcome.Completed.class);
        assertThat(row(a.id()).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row(b.id()).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(b.id()).fenceHighWater()).isEqualTo(50);
        assertThat(row(c.id()).status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(row(c.id()).fenceHighWater()).isEqualTo(61);
        assertThat(store.completeAllFenced(List.of())).isEmpty();
    }
}
