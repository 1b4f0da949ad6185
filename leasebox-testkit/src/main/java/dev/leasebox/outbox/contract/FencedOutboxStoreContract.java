package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionError;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimRecording.Reason;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

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
 */
public abstract class FencedOutboxStoreContract extends OutboxContractSupport {

    /** The store under test. */
    protected FencedOutboxStore store;

    /** A fenced store over an empty outbox, whose "now" is {@code clock}. */
    protected abstract FencedOutboxStore newFencedStore(MutableClock clock);

    @BeforeEach
    void makeTheStoreUnderTest() {
        store = newFencedStore(clock);
    }

    @Override
    protected final OutboxStore outboxStore() {
        return store;
    }

    protected final ClaimGrant grant(long entryId, String owner, long token) {
        return new ClaimGrant(entryId, owner, token, now(), now().plus(LEASE));
    }

    /** Records one grant that must be accepted. */
    protected final OutboxClaim record(long entryId, String owner, long token) {
        ClaimRecording recording = store.recordClaims(ClaimSelection.ELIGIBLE, List.of(grant(entryId, owner, token)));
        assertThat(recording.refused()).as("refusals of a grant that should be recorded").isEmpty();
        assertThat(recording.recorded()).hasSize(1);
        return recording.recorded().get(0);
    }

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
    void candidateIdsAreTheEligibleStatusesOldestFirstAndWriteNothing() {
        OutboxEntry pending = enqueue("pending");
        OutboxEntry retry = enqueueIn("retry", EmissionStatus.RETRYABLE_FAILURE, now());
        OutboxEntry deferred = enqueueIn("deferred", EmissionStatus.DEFERRED, now());
        enqueueIn("deferred-later", EmissionStatus.DEFERRED, now().plusSeconds(60));
        enqueueIn("failed", EmissionStatus.FAILED, null);
        enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        enqueueIn("dead", EmissionStatus.DEAD_LETTERED, null);
        List<OutboxEntry> before = List.of(row(pending.id()), row(retry.id()), row(deferred.id()));

        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1)))
                .containsExactly(pending.id(), retry.id(), deferred.id());
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.PENDING, 10, 1)))
                .containsExactly(pending.id(), deferred.id());
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.RETRY_READY, 10, 1)))
                .containsExactly(retry.id());
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 2, 1)))
                .containsExactly(pending.id(), retry.id());
        assertThat(List.of(row(pending.id()), row(retry.id()), row(deferred.id()))).isEqualTo(before);
    }

    @Test
    void candidateIdsSkipAHeldClaimUntilItLapses() {
        OutboxEntry pending = enqueue("pending");
        OutboxEntry retry = enqueueIn("retry", EmissionStatus.RETRYABLE_FAILURE, now());
        enqueueIn("later", EmissionStatus.DEFERRED, now().plusSeconds(60));
        enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        OutboxEntry held = enqueue("held");
        record(held.id(), "w1", 10);
        OutboxEntry before = row(pending.id());

        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1))).containsExactly(pending.id(), retry.id());
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.RETRY_READY, 10, 1))).containsExactly(retry.id());
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 1, 1))).containsExactly(pending.id());
        assertThat(row(pending.id())).isEqualTo(before);
        clock.advance(LEASE.plusSeconds(1));
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.PENDING, 10, 1))).containsExactly(pending.id(), held.id());
    }

    @Test
    void aStripedCandidateQueryPutsTheOwnStripeFirstAndNeverReturnsExcludedOrIneligibleRows() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add(enqueue("striped-" + i).id());
        }
        OutboxEntry held = enqueue("held");
        record(held.id(), "w1", 10);
        CandidateStripe stripe = new CandidateStripe((int) Math.floorMod(ids.get(1), 3L), 3);
        List<Long> own = ids.stream().filter(stripe::contains).toList();
        assertThat(own).hasSize(4);
        Long excluded = own.get(0);

        List<Long> chosen = store.findClaimCandidateIds(
                new CandidateQuery(ClaimSelection.ELIGIBLE, 3, 2, stripe, Set.of(excluded)));

        assertThat(chosen).hasSize(6).doesNotHaveDuplicates().doesNotContain(excluded, held.id());
        assertThat(ids).containsAll(chosen);
        assertThat(chosen.subList(0, 3)).as("the own stripe first").containsExactlyInAnyOrderElementsOf(own.subList(1, 4));
        assertThat(chosen.subList(3, 6)).noneMatch(stripe::contains);
    }

    @Test
    void aStripeOfBlocksLargerThanTheSampleStillFindsItsOwnBlockAndTheRestComeABlockAtATime() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add(enqueue("blocks-" + i).id());
        }
        // blocks of 8 rows, 3 stripes; this stripe's first block starts 9 to 16 rows after the oldest row,
        // so a window of the sample (4) times the stripes, 12 rows, would hold three of its rows at most
        int block = 8;
        CandidateStripe stripe = new CandidateStripe((int) Math.floorMod(Math.floorDiv(ids.get(0), block) + 2, 3L), 3, block);
        List<Long> own = ids.stream().filter(stripe::contains).toList();
        assertThat(ids.indexOf(own.get(0))).isBetween(9, 16);

        CandidateQuery query = new CandidateQuery(ClaimSelection.ELIGIBLE, 2, 2, stripe, Set.of());
        assertThat(query.sample()).as("batch + block: one refused block still leaves a batch").isEqualTo(10);

        List<Long> chosen = store.findClaimCandidateIds(query);

        assertThat(chosen).hasSize(10).doesNotHaveDuplicates();
        assertThat(chosen.subList(0, 8)).as("the own stripe's oldest block").containsExactlyElementsOf(own.subList(0, 8));
        assertThat(chosen.subList(8, 10)).as("then other stripes' rows").noneMatch(stripe::contains);

        List<Long> helping = store.findClaimCandidateIds(new CandidateQuery(ClaimSelection.ELIGIBLE, 10, 2, stripe, Set.copyOf(own)));
        assertThat(helping).isNotEmpty().noneMatch(stripe::contains);
        long firstBlock = Math.floorDiv(helping.get(0), block);
        int inFirstBlock = (int) helping.stream().takeWhile(id -> Math.floorDiv(id, block) == firstBlock).count();
        assertThat(helping.subList(0, inFirstBlock)).as("another stripe's block, oldest first, before any other block").isSorted()
                .containsExactlyElementsOf(ids.stream().filter(id -> Math.floorDiv(id, block) == firstBlock).toList());
    }

    @Test
    void anUnstripedCandidateQueryLeavesOutTheExcludedRowsAndStillFillsItsSample() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(enqueue("plain-" + i).id());
        }

        List<Long> chosen = store.findClaimCandidateIds(new CandidateQuery(ClaimSelection.ELIGIBLE, 2, 2,
                CandidateStripe.ALL, Set.of(ids.get(0), ids.get(1))));

        assertThat(chosen).containsExactlyInAnyOrderElementsOf(ids.subList(2, 6));
    }

    @Test
    void findEligibleReturnsOnlyTheGivenRowsThatAreStillEligibleOldestFirstAndWritesNothing() {
        OutboxEntry pending = enqueue("pending");
        OutboxEntry retry = enqueueIn("retry", EmissionStatus.RETRYABLE_FAILURE, now());
        OutboxEntry later = enqueueIn("later", EmissionStatus.DEFERRED, now().plusSeconds(60));
        OutboxEntry delivered = enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        OutboxEntry parked = enqueueIn("parked", EmissionStatus.FAILED, null);
        OutboxEntry held = enqueue("held");
        record(held.id(), "w1", 10);
        OutboxEntry notAsked = enqueue("not asked");
        List<Long> asked = List.of(held.id(), 987_654_321L, parked.id(), delivered.id(), later.id(), retry.id(), pending.id());
        OutboxEntry before = row(pending.id());

        assertThat(store.findEligible(ClaimSelection.ELIGIBLE, asked)).extracting(OutboxEntry::id)
                .containsExactly(pending.id(), retry.id());
        assertThat(store.findEligible(ClaimSelection.ELIGIBLE, asked)).first().isEqualTo(before);
        assertThat(store.findEligible(ClaimSelection.PENDING, asked)).extracting(OutboxEntry::id)
                .containsExactly(pending.id());
        assertThat(store.findEligible(ClaimSelection.ELIGIBLE, List.of())).isEmpty();
        assertThat(row(pending.id())).isEqualTo(before);
        clock.advance(LEASE.plusSeconds(40)); // past the claim's expiry and the deferral's due time
        assertThat(store.findEligible(ClaimSelection.ELIGIBLE, asked)).extracting(OutboxEntry::id)
                .as("an expired claim is eligible again, a due deferral too")
                .containsExactly(pending.id(), retry.id(), later.id(), held.id())
                .doesNotContain(notAsked.id());
    }

    @Test
    void candidateIdsSkipUnexpiredClaimsAndIncludeExpiredOnes() {
        OutboxEntry entry = enqueue("claimed");
        record(entry.id(), "w1", 10);

        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1))).isEmpty();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(store.findClaimCandidateIds(CandidateQuery.of(ClaimSelection.ELIGIBLE, 10, 1)))
                .containsExactly(entry.id());
    }

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

    // ---- the lean mode's fenced completion -------------------------------------------------------

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
