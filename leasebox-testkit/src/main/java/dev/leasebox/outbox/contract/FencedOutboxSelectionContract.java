package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.CandidateQuery;
import dev.leasebox.outbox.CandidateStripe;
import dev.leasebox.outbox.ClaimGrant;
import dev.leasebox.outbox.ClaimRecording;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The candidate search of the fenced-store contract: {@code findClaimCandidateIds}
 * (striped or not) and {@code findEligible} read only, and return only eligible rows. Backends extend
 * {@link FencedOutboxStoreContract}, which inherits these tests.
 */
public abstract class FencedOutboxSelectionContract extends OutboxContractSupport {

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
}
