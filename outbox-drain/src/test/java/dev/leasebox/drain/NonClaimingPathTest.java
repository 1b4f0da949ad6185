package dev.leasebox.drain;

import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code useClaimLeases = false}: select, emit, save; it works, and two workers emit the same entry. */
class NonClaimingPathTest {

    private final DrainFixture f = new DrainFixture();
    private final OutboxStore selectionOnly = new DrainOptionsTest.SelectionOnlyStore(f.outbox);

    @AfterEach
    void closeFixture() {
        f.close();
    }

    private OutboxDrain drain(String owner, OutboxProvider provider) {
        return f.register(OutboxDrain.builder().selectionOnlyStore(selectionOnly).provider(provider)
                .options(DrainFixture.options(owner).useClaimLeases(false).build()).clock(f.clock)
                .backoffRandom(new java.util.Random(42)).build());
    }

    @Test
    void selectsEmitsAndSavesEveryOutcomeWithoutClaims() {
        List<OutboxEntry> entries = f.enqueue(3);
        Instant later = f.clock.instant().plus(Duration.ofMinutes(1));
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            if (f.clock.instant().isBefore(later) && e.entryId() == entries.get(1).id()) {
                return ProviderOutcome.retryable("429");
            }
            if (f.clock.instant().isBefore(later) && e.entryId() == entries.get(2).id()) {
                return ProviderOutcome.deferredUntil(later, "maintenance window");
            }
            return ProviderOutcome.delivered();
        });
        OutboxDrain drain = drain("solo-worker", provider);

        assertThat(drain.runOnce()).isEqualTo(new CycleResult(3, 1, 1, 1, 0, 0, 0, 0));
        assertThat(f.row(entries.get(0).id()).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(f.row(entries.get(1).id()).status()).isEqualTo(EmissionStatus.RETRYABLE_FAILURE);
        assertThat(f.row(entries.get(2).id()).status()).isEqualTo(EmissionStatus.DEFERRED);
        assertThat(provider.envelopes).allSatisfy(e -> {
            assertThat(e.fence()).as("no claim, no fence").isEmpty();
            assertThat(e.owner()).isEqualTo("solo-worker");
        });
        assertThat(f.outbox.all()).allSatisfy(row -> {
            assertThat(row.claimToken()).isEmpty();
            assertThat(row.fenceHighWater()).isZero();
        });

        f.clock.set(later);
        assertThat(drain.runOnce().delivered()).as("the due deferral and the due retry").isEqualTo(2);
        assertThat(f.outbox.all()).allMatch(e -> e.status() == EmissionStatus.DELIVERED);
    }

    @Test
    void twoWorkersOnTheNonClaimingPathEmitTheSameEntry() {
        OutboxEntry entry = f.enqueue(1).get(0);
        RecordingProvider secondProvider = RecordingProvider.delivering(f.clock);
        OutboxDrain second = drain("worker-b", secondProvider);
        AtomicReference<CycleResult> seenBySecond = new AtomicReference<>();
        RecordingProvider firstProvider = new RecordingProvider(f.clock, e -> {
            seenBySecond.compareAndSet(null, second.runOnce()); // while the first is emitting
            return ProviderOutcome.delivered();
        });
        OutboxDrain first = drain("worker-a", firstProvider);

        first.runOnce();

        assertThat(seenBySecond.get().delivered()).isEqualTo(1);
        assertThat(firstProvider.emissions).hasSize(1);
        assertThat(secondProvider.emissions).hasSize(1);
        assertThat(secondProvider.emissions.get(0).idempotencyKey()).isEqualTo(entry.idempotencyKey());
        OutboxEntry row = f.row(entry.id());
        assertThat(row.status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(row.attemptCount()).as("the second save overwrote the first: the row hides the duplicate").isEqualTo(1);
    }
}
