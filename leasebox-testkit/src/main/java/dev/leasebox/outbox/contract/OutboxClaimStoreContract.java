package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.ClaimCompletion;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim-store contract every {@link OutboxClaimStore} passes: extend this class (only this one)
 * and implement {@link #newStore(MutableClock)}. The store must take "now" from the given clock
 * (never from the database's own clock) so that the kit can move time; each call returns a store over
 * an empty outbox. It inherits the selection tests of {@link OutboxClaimSelectionContract} and the
 * transition and refusal tests of {@link OutboxClaimCompletionContract}, and adds batch completion,
 * renewal and the fence high-water mark.
 *
 * <p>The store is shared by several threads in {@code concurrentClaimersNeverGetTheSameRow...}, as
 * it is by a drain's workers: it must be thread-safe. Rows are made through the store's own {@code enqueue} and {@code save}; idempotency keys carry
 * a random per-test prefix. The clock starts at 2026-01-01T00:00:00Z and moves in whole seconds.
 */
public abstract class OutboxClaimStoreContract extends OutboxClaimCompletionContract {

    @Test
    void completeAllReturnsEachOutcomeInTheOrderGiven() {
        enqueue("first");
        enqueue("released");
        enqueue("last");
        List<OutboxClaim> claims = store.claimPending(request("w1", 3));
        OutboxClaim first = claims.get(0);
        OutboxClaim released = claims.get(1);
        OutboxClaim last = claims.get(2);
        completed(store.releaseClaim(released, "back"));

        List<CompletionOutcome> outcomes = store.completeAll(List.of(
                new ClaimCompletion(first, new Completion.Delivered(EmissionResult.at(now()))),
                new ClaimCompletion(released, new Completion.Delivered(EmissionResult.at(now()))),
                new ClaimCompletion(claimOnMissingRow(987_654_321L, 3), new Completion.Released("gone")),
                new ClaimCompletion(last, new Completion.Failed(BROKER_DOWN, Optional.of(now().plusSeconds(5))))));

        assertThat(outcomes).hasSize(4);
        assertThat(outcomes.get(0)).isInstanceOf(CompletionOutcome.Completed.class);
        assertThat(outcomes.get(1)).isInstanceOf(CompletionOutcome.StaleToken.class);
        assertThat(outcomes.get(2)).isInstanceOf(CompletionOutcome.Missing.class);
        assertThat(outcomes.get(3)).isInstanceOf(CompletionOutcome.Completed.class);
        assertThat(row(first.entryId()).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row(released.entryId()).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row(last.entryId()).status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertClaimCleared(last.entryId(), last.token());
    }

    @Test
    void completeAllOfNothingReturnsNothing() {
        assertThat(store.completeAll(List.of())).isEmpty();
    }

    @Test
    void renewingHeldClaimsMovesTheirExpirySoTheyOutliveTheOriginalLease() {
        enqueue("a");
        enqueue("b");
        List<OutboxClaim> claims = store.claimPending(request("w1", 2));
        clock.advance(LEASE.minusSeconds(10));

        List<OutboxClaim> renewed = store.renewClaims(claims, LEASE);

        assertThat(renewed).extracting(OutboxClaim::entryId)
                .containsExactlyInAnyOrderElementsOf(claims.stream().map(OutboxClaim::entryId).toList());
        assertThat(renewed).allSatisfy(c -> {
            assertThat(c.expiresAt()).isEqualTo(now().plus(LEASE));
            assertClaimedBy(c);
        });
        clock.advance(Duration.ofSeconds(20));
        assertThat(store.claim(ClaimSelection.ELIGIBLE, request("w2", 10)))
                .as("past the original expiry, before the renewed one").isEmpty();
        assertThat(store.markClaimDelivered(renewed.get(0), EmissionResult.at(now())).isCompleted()).isTrue();
    }

    @Test
    void renewingLeavesOutAClaimThatWasReclaimedAndDoesNotTouchTheNewHolder() {
        OutboxClaim old = claimOne("reclaimed", "w1");
        OutboxClaim kept = claimOne("kept", "w1");
        clock.advance(LEASE.plusSeconds(1));
        OutboxClaim current = store.claimPending(request("w2", 1)).get(0);
        assertThat(current.entryId()).isEqualTo(old.entryId());

        List<OutboxClaim> renewed = store.renewClaims(List.of(old), LEASE);

        assertThat(renewed).isEmpty();
        assertClaimedBy(current);
        assertThat(kept.entryId()).isNotEqualTo(current.entryId());
    }

    @Test
    void renewingACompletedClaimReturnsNothing() {
        OutboxClaim claim = claimOne("done", "w1");
        completed(store.markClaimDelivered(claim, EmissionResult.at(now())));

        assertThat(store.renewClaims(List.of(claim), LEASE)).isEmpty();
        assertClaimCleared(claim.entryId(), claim.token());
        assertThat(store.renewClaims(List.of(), LEASE)).isEmpty();
    }

    @Test
    void theHighestFenceHighWaterIsTheGreatestTokenEverRecordedAndSurvivesCompletion() {
        enqueue("a");
        enqueue("b");
        List<OutboxClaim> claims = store.claimPending(request("w1", 2));
        long greatest = claims.stream().mapToLong(OutboxClaim::token).max().orElseThrow();

        assertThat(store.highestFenceHighWater()).isEqualTo(claimsAreWrittenToRows() ? greatest : 0);
        claims.forEach(c -> completed(store.markClaimDelivered(c, EmissionResult.at(now()))));
        assertThat(store.highestFenceHighWater()).isEqualTo(greatest);
    }

    /** How many threads claim concurrently in the concurrency test (default 4). */
    protected int concurrentClaimers() {
        return 4;
    }

    @Test
    void concurrentClaimersNeverGetTheSameRowAndTogetherGetEveryRow() throws Exception {
        int rows = 40;
        for (int i = 0; i < rows; i++) {
            enqueue("row-" + i);
        }
        int threads = concurrentClaimers();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<OutboxClaim>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "w" + t;
                results.add(pool.submit(() -> {
                    List<OutboxClaim> mine = new ArrayList<>();
                    for (List<OutboxClaim> batch = store.claimPending(request(owner, 3)); !batch.isEmpty();
                         batch = store.claimPending(request(owner, 3))) {
                        mine.addAll(batch);
                    }
                    return mine;
                }));
            }
            List<Long> claimed = new ArrayList<>();
            for (Future<List<OutboxClaim>> result : results) {
                result.get(2, TimeUnit.MINUTES).forEach(c -> claimed.add(c.entryId()));
            }
            assertThat(claimed).doesNotHaveDuplicates().hasSize(rows);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void tokensOfOneRowStrictlyGrowAcrossReleaseReclaimAndExpiry() {
        OutboxClaim claim = claimOne("cycles", "w0");
        long last = claim.token();
        int completions = 0;
        for (int round = 1; round <= 4; round++) {
            if (round % 2 == 0) {
                completed(store.releaseClaim(claim, "round " + round));
                completions++;
            } else {
                clock.advance(LEASE.plusSeconds(1));
            }
            claim = store.claimPending(request("w" + round, 1)).get(0);
            assertThat(claim.token()).as("token of claim %d", round).isGreaterThan(last);
            // recorded claims count every claim; lean claims count the completed ones
            assertThat(claim.claimAttemptCount()).isEqualTo(claimsAreWrittenToRows() ? round + 1 : completions + 1);
            last = claim.token();
        }
        if (claimsAreWrittenToRows()) {
            assertThat(row(claim.entryId()).fenceHighWater()).isEqualTo(last);
        } else {
            assertClaimedBy(claim);
        }
    }
}
