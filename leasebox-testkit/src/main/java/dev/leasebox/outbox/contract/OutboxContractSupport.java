package dev.leasebox.outbox.contract;

import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.testkit.MutableClock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fixtures shared by the outbox store contract kits: a {@link MutableClock} the store takes "now"
 * from, rows made through the store's own API ({@code enqueue}, then {@code save} for other
 * statuses), and per-test random idempotency keys so that a shared database does not collide.
 * Enqueueing moves the clock by one second, so rows are strictly ordered by creation time and id.
 */
public abstract class OutboxContractSupport {

    /** The claim lease duration the kits request. */
    protected static final Duration LEASE = Duration.ofSeconds(30);

    protected final MutableClock clock = MutableClock.startingAt2026();
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /** The store under test, as an {@link OutboxStore}, made in the kit's {@code @BeforeEach}. */
    protected abstract OutboxStore outboxStore();

    protected final Instant now() {
        return clock.instant();
    }

    /** Enqueues a PENDING entry named {@code name}, then moves the clock on by one second. */
    protected final OutboxEntry enqueue(String name) {
        OutboxMessage message = OutboxMessage.of("contract.test", name.getBytes(StandardCharsets.UTF_8))
                .withIdempotencyKey(idempotencyKey(name))
                .withHeader("test", name);
        OutboxEntry entry = outboxStore().enqueue(message);
        clock.advance(Duration.ofSeconds(1));
        return entry;
    }

    protected final String idempotencyKey(String name) {
        return "contract-" + run + "-" + name;
    }

    /** Enqueues an entry and saves it in {@code status}, due at {@code nextAttemptAt} (null: no time). */
    protected final OutboxEntry enqueueIn(String name, EmissionStatus status, Instant nextAttemptAt) {
        OutboxEntry entry = enqueue(name);
        return outboxStore().save(entry.toBuilder().status(status).nextAttemptAt(nextAttemptAt).build());
    }

    protected final ClaimRequest request(String owner, int batchSize) {
        return new ClaimRequest(owner, batchSize, LEASE);
    }

    /** The row as the store holds it now. */
    protected final OutboxEntry row(long id) {
        return outboxStore().find(id).orElseThrow(() -> new AssertionError("no row " + id + " in the store"));
    }

    /** Asserts that the row carries no claim and kept {@code highWater} as its fence high-water mark. */
    protected final void assertClaimCleared(long id, long highWater) {
        OutboxEntry row = row(id);
        assertThat(row.claimOwner()).as("claim owner of row %d", id).isEmpty();
        assertThat(row.claimToken()).as("claim token of row %d", id).isEmpty();
        assertThat(row.claimedAt()).as("claimed at of row %d", id).isEmpty();
        assertThat(row.claimExpiresAt()).as("claim expiry of row %d", id).isEmpty();
        assertThat(row.fenceHighWater()).as("fence high-water of row %d", id).isEqualTo(highWater);
    }

    /**
     * Whether the store under test writes each claim to its row before anything is emitted (recorded claims,
     * the default). Lean claim stores override this with false: their rows carry nothing while in flight,
     * and the fence is checked when the claim completes.
     */
    protected boolean claimsAreWrittenToRows() {
        return true;
    }

    /**
     * Asserts that the row carries exactly {@code claim} (recorded claims), or (lean claims) that nothing was
     * written to it and its fence high-water mark is still below the claim's fence, so that the claim's
     * completion can be written.
     */
    protected final void assertClaimedBy(OutboxClaim claim) {
        OutboxEntry row = row(claim.entryId());
        if (!claimsAreWrittenToRows()) {
            assertThat(row.status().isTerminal()).as("row %d is not terminal", claim.entryId()).isFalse();
            assertThat(row.claimToken()).as("a lean claim writes nothing to row %d", claim.entryId()).isEmpty();
            assertThat(row.fenceHighWater()).as("fence high-water of row %d", claim.entryId()).isLessThan(claim.token());
            return;
        }
        assertThat(row.claimOwner()).contains(claim.owner());
        assertThat(row.claimToken()).hasValue(claim.token());
        assertThat(row.claimExpiresAt()).contains(claim.expiresAt());
        assertThat(row.fenceHighWater()).isGreaterThanOrEqualTo(claim.token());
    }

    /** A claim on a row that does not exist, for refusal tests. */
    protected final OutboxClaim claimOnMissingRow(long id, long token) {
        OutboxEntry ghost = OutboxEntry.builder().id(id).idempotencyKey(idempotencyKey("ghost-" + id))
                .type("contract.test").createdAt(now()).build();
        return new OutboxClaim(ghost, "ghost-owner", token, now(), now().plus(LEASE), 1);
    }
}
