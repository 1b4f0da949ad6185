package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The selecting half of the claim-store contract: which rows each claim and find selects, the claim
 * fields a claim writes, reclaim after expiry, and the plain store operations. Backends extend
 * {@link OutboxClaimStoreContract}, which inherits these tests.
 */
public abstract class OutboxClaimSelectionContract extends OutboxContractSupport {

    /** The store under test. */
    protected OutboxClaimStore store;

    /** The plain store over the same outbox (enqueue, reads, unconditional saves). */
    private OutboxStore entries;

    /**
     * A claim store over an empty outbox, whose "now" is {@code clock}. A claim store that is not itself an
     * {@link OutboxStore} (one claiming through leases over another store) names the store it claims from with
     * {@link #over(OutboxStore)}.
     */
    protected abstract OutboxClaimStore newStore(MutableClock clock);

    /** Names {@code entries} as the store the claim store under test claims from; returns it. */
    protected final <S extends OutboxStore> S over(S entries) {
        this.entries = entries;
        return entries;
    }

    @BeforeEach
    void makeTheStoreUnderTest() {
        entries = null;
        store = newStore(clock);
        if (entries == null) {
            if (!(store instanceof OutboxStore plain)) {
                throw new IllegalStateException(store.getClass().getName()
                        + " is no OutboxStore: newStore must name the store it claims from with over(store)");
            }
            entries = plain;
        }
    }

    @Override
    protected final OutboxStore outboxStore() {
        return entries;
    }

    @Test
    void enqueueWritesAPendingEntryWithTheMessageAndNoClaim() {
        OutboxMessage message = OutboxMessage.of("order.placed", "{\"id\":1}".getBytes(StandardCharsets.UTF_8))
                .withIdempotencyKey(idempotencyKey("order-1")).withPartitionKey("order-1").withHeader("h", "v");
        OutboxEntry entry = outboxStore().enqueue(message);

        OutboxEntry row = row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(row.type()).isEqualTo("order.placed");
        assertThat(row.payload()).isEqualTo(message.payload());
        assertThat(row.headers()).isEqualTo(Map.of("h", "v"));
        assertThat(row.idempotencyKey()).isEqualTo(idempotencyKey("order-1"));
        assertThat(row.partitionKey()).contains("order-1");
        assertThat(row.attemptCount()).isZero();
        assertThat(row.createdAt()).isEqualTo(now());
        assertThat(row.claimToken()).isEmpty();
        assertThat(row.fenceHighWater()).isZero();
    }

    @Test
    void enqueueRejectsADuplicateIdempotencyKeyNamingIt() {
        OutboxEntry first = enqueue("dup");
        OutboxMessage again = OutboxMessage.of("contract.test", new byte[0]).withIdempotencyKey(idempotencyKey("dup"));

        assertThatThrownBy(() -> outboxStore().enqueue(again)).hasMessageContaining(idempotencyKey("dup"));
        assertThat(outboxStore().findPending(10)).extracting(OutboxEntry::id).containsExactly(first.id());
    }

    @Test
    void claimPendingTakesPendingAndDueDeferredOnly() {
        OutboxEntry pending = enqueue("pending");
        OutboxEntry deferredDue = enqueueIn("deferred-due", EmissionStatus.DEFERRED, now().minusSeconds(1));
        enqueueIn("deferred-later", EmissionStatus.DEFERRED, now().plusSeconds(60));
        enqueueIn("retry-due", EmissionStatus.RETRYABLE_FAILURE, now().minusSeconds(1));
        enqueueIn("failed", EmissionStatus.FAILED, null);
        enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        enqueueIn("dead", EmissionStatus.DEAD_LETTERED, null);

        List<OutboxClaim> claims = store.claimPending(request("w1", 100));

        assertThat(claims).extracting(OutboxClaim::entryId).containsExactly(pending.id(), deferredDue.id());
    }

    @Test
    void claimRetryReadyTakesDueRetryableFailuresOnly() {
        enqueue("pending");
        enqueueIn("deferred-due", EmissionStatus.DEFERRED, now().minusSeconds(1));
        OutboxEntry retryDue = enqueueIn("retry-due", EmissionStatus.RETRYABLE_FAILURE, now().minusSeconds(1));
        enqueueIn("retry-later", EmissionStatus.RETRYABLE_FAILURE, now().plusSeconds(60));
        enqueueIn("failed", EmissionStatus.FAILED, null);

        List<OutboxClaim> claims = store.claimRetryReady(request("w1", 100));

        assertThat(claims).extracting(OutboxClaim::entryId).containsExactly(retryDue.id());
    }

    @Test
    void claimEligibleTakesBothKindsOldestFirstAndNeverFailedDeliveredOrDeadLettered() {
        OutboxEntry retryDue = enqueueIn("retry-due", EmissionStatus.RETRYABLE_FAILURE, now());
        enqueueIn("failed", EmissionStatus.FAILED, null);
        OutboxEntry pending = enqueue("pending");
        enqueueIn("delivered", EmissionStatus.DELIVERED, null);
        OutboxEntry deferredDue = enqueueIn("deferred-due", EmissionStatus.DEFERRED, now());
        enqueueIn("dead", EmissionStatus.DEAD_LETTERED, null);
        enqueueIn("retry-later", EmissionStatus.RETRYABLE_FAILURE, now().plusSeconds(60));

        List<OutboxClaim> claims = store.claim(ClaimSelection.ELIGIBLE, request("w1", 100));

        assertThat(claims).extracting(OutboxClaim::entryId)
                .containsExactly(retryDue.id(), pending.id(), deferredDue.id());
    }

    @Test
    void aNotYetDueRowBecomesClaimableWhenItsTimeComes() {
        OutboxEntry later = enqueueIn("later", EmissionStatus.DEFERRED, now().plusSeconds(60));
        assertThat(store.claimPending(request("w1", 10))).isEmpty();

        clock.advance(Duration.ofSeconds(60));

        assertThat(store.claimPending(request("w1", 10))).extracting(OutboxClaim::entryId).containsExactly(later.id());
    }

    @Test
    void aClaimTakesAtMostTheBatchSizeOldestFirst() {
        List<OutboxEntry> rows = List.of(enqueue("a"), enqueue("b"), enqueue("c"), enqueue("d"), enqueue("e"));

        List<OutboxClaim> first = store.claimPending(request("w1", 3));
        List<OutboxClaim> second = store.claimPending(request("w2", 3));

        assertThat(first).extracting(OutboxClaim::entryId)
                .containsExactly(rows.get(0).id(), rows.get(1).id(), rows.get(2).id());
        assertThat(second).extracting(OutboxClaim::entryId).containsExactly(rows.get(3).id(), rows.get(4).id());
    }

    @Test
    void aClaimWritesOwnerTimesTokenAttemptCountAndRaisesTheHighWaterToTheToken() {
        OutboxEntry entry = enqueue("fields");

        OutboxClaim claim = store.claimPending(request("worker-7", 1)).get(0);

        assertThat(claim.owner()).isEqualTo("worker-7");
        assertThat(claim.claimedAt()).isEqualTo(now());
        assertThat(claim.expiresAt()).isEqualTo(now().plus(LEASE));
        assertThat(claim.token()).isPositive();
        assertThat(claim.claimAttemptCount()).isEqualTo(1);
        assertThat(claim.entry().claimToken()).hasValue(claim.token());
        OutboxEntry row = row(entry.id());
        if (!claimsAreWrittenToRows()) {
            assertThat(row).as("a lean claim writes nothing").isEqualTo(entry);
            return;
        }
        assertThat(row.claimOwner()).contains("worker-7");
        assertThat(row.claimedAt()).contains(now());
        assertThat(row.claimExpiresAt()).contains(now().plus(LEASE));
        assertThat(row.claimToken()).hasValue(claim.token());
        assertThat(row.claimAttemptCount()).isEqualTo(1);
        assertThat(row.fenceHighWater()).isEqualTo(claim.token());
        assertThat(row.status()).as("a claim is not an emission state").isEqualTo(EmissionStatus.PENDING);
    }

    @Test
    void aClaimedRowIsNotClaimedAgainBeforeItsClaimExpires() {
        enqueue("held");
        OutboxClaim claim = store.claimPending(request("w1", 10)).get(0);

        clock.advance(LEASE.minusSeconds(1));

        assertThat(store.claimPending(request("w2", 10))).isEmpty();
        assertThat(store.claim(ClaimSelection.ELIGIBLE, request("w2", 10))).isEmpty();
        assertClaimedBy(claim);
    }

    @Test
    void aRowReclaimedAfterExpiryGetsAHigherTokenAndOneMoreClaimAttempt() {
        enqueue("expiring");
        OutboxClaim first = store.claimPending(request("w1", 10)).get(0);

        clock.advance(LEASE.plusSeconds(1));
        List<OutboxClaim> again = store.claimPending(request("w2", 10));

        assertThat(again).hasSize(1);
        OutboxClaim second = again.get(0);
        assertThat(second.entryId()).isEqualTo(first.entryId());
        assertThat(second.owner()).isEqualTo("w2");
        assertThat(second.token()).isGreaterThan(first.token());
        assertClaimedBy(second);
        if (claimsAreWrittenToRows()) {
            assertThat(second.claimAttemptCount()).isEqualTo(first.claimAttemptCount() + 1);
            assertThat(row(second.entryId()).fenceHighWater()).isEqualTo(second.token());
        } else {
            assertThat(second.claimAttemptCount()).as("lean claims count completed claims: none yet")
                    .isEqualTo(first.claimAttemptCount());
        }
    }

    @Test
    void findPendingAndFindRetryReadySelectWithoutWritingClaims() {
        OutboxEntry pending = enqueue("pending");
        OutboxEntry retry = enqueueIn("retry", EmissionStatus.RETRYABLE_FAILURE, now());
        enqueueIn("failed", EmissionStatus.FAILED, null);

        assertThat(outboxStore().findPending(10)).extracting(OutboxEntry::id).containsExactly(pending.id());
        assertThat(outboxStore().findRetryReady(10)).extracting(OutboxEntry::id).containsExactly(retry.id());
        assertClaimCleared(pending.id(), 0);
        assertClaimCleared(retry.id(), 0);
        assertThat(row(pending.id()).claimAttemptCount()).isZero();
        assertThat(store.claim(ClaimSelection.ELIGIBLE, request("w1", 10))).hasSize(2)
                .allSatisfy(c -> assertThat(c.claimAttemptCount()).isEqualTo(1));
    }

    @Test
    void findPendingSkipsRowsUnderAnUnexpiredClaimAndSeesThemAgainAfterExpiry() {
        OutboxEntry entry = enqueue("claimed");
        store.claimPending(request("w1", 10));

        if (!claimsAreWrittenToRows()) {
            assertThat(outboxStore().findPending(10)).as("a lean claim writes nothing: its row is still read")
                    .extracting(OutboxEntry::id).containsExactly(entry.id());
            return;
        }
        assertThat(outboxStore().findPending(10)).isEmpty();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(outboxStore().findPending(10)).extracting(OutboxEntry::id).containsExactly(entry.id());
    }

    @Test
    void saveWritesTheEmissionStateOfARow() {
        OutboxEntry entry = enqueue("saved");
        OutboxEntry changed = entry.toBuilder().status(EmissionStatus.DEFERRED).attemptCount(2)
                .nextAttemptAt(now().plusSeconds(30)).lastError("E: try later").build();

        outboxStore().save(changed);

        OutboxEntry row = row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DEFERRED);
        assertThat(row.attemptCount()).isEqualTo(2);
        assertThat(row.nextAttemptAt()).contains(now().plusSeconds(30));
        assertThat(row.lastError()).contains("E: try later");
        assertThat(row.idempotencyKey()).isEqualTo(entry.idempotencyKey());
    }

    @Test
    void saveOfAnUnknownRowFails() {
        OutboxEntry ghost = claimOnMissingRow(987_654_321L, 1).entry();
        assertThatThrownBy(() -> outboxStore().save(ghost)).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void anEmptyOutboxHasHighWaterZeroAndNothingToClaim() {
        assertThat(store.highestFenceHighWater()).isZero();
        assertThat(store.claim(ClaimSelection.ELIGIBLE, request("w1", 10))).isEmpty();
        assertThat(outboxStore().find(1)).isEmpty();
    }
}
