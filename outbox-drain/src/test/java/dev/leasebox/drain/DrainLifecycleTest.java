package dev.leasebox.drain;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** start, drainUntilIdle, concurrency and graceful shutdown. */
class DrainLifecycleTest {

    private final DrainFixture f = new DrainFixture();

    @AfterEach
    void closeFixture() {
        f.close();
    }

    @Test
    void gracefulShutdownFinishesTheEmissionInFlightAndReleasesTheClaimsNotYetEmitted() throws Exception {
        List<OutboxEntry> entries = f.enqueue(10);
        CountDownLatch inEmission = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            inEmission.countDown();
            assertThat(proceed.await(10, TimeUnit.SECONDS)).isTrue();
            return ProviderOutcome.delivered();
        });
        RecordingListener listener = new RecordingListener();
        LeasedOutboxClaimStore store = f.newClaimStore();
        OutboxDrain drain = f.register(f.drainOn(store, provider, DrainFixture.options("worker-a").build())
                .listener(listener).build());

        drain.start();
        assertThat(inEmission.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(drain::close);
        await().atMost(Duration.ofSeconds(10)).until(() -> drain.state() == OutboxDrain.State.STOPPING);
        proceed.countDown();
        closing.get(10, TimeUnit.SECONDS);

        assertThat(drain.state()).isEqualTo(OutboxDrain.State.CLOSED);
        assertThat(provider.emissions).hasSize(1);
        assertThat(f.row(entries.get(0).id()).status()).isEqualTo(EmissionStatus.DELIVERED);
        for (OutboxEntry entry : entries.subList(1, 10)) {
            OutboxEntry row = f.row(entry.id());
            assertThat(row.status()).isEqualTo(EmissionStatus.PENDING);
            assertThat(row.attemptCount()).isZero();
            assertThat(row.claimToken()).as("released, claimable by the next worker at once").isEmpty();
        }
        assertThat(listener.released).hasSize(9);
        assertThat(store.heldCount()).isZero();
        assertThat(f.leases.heldCount()).isZero();
        assertThatThrownBy(drain::runOnce).isInstanceOf(IllegalStateException.class)
                .hasMessage("OutboxDrain worker-a is CLOSED; build a new drain");
        assertThat(f.drain("worker-b", RecordingProvider.delivering(f.clock)).runOnce().delivered()).isEqualTo(9);
    }

    @Test
    void concurrentLoopsOfSeveralDrainsEmitEveryEntryExactlyOnceWithoutFaults() {
        f.enqueue(500);
        // each drain's first emission waits for the other's, so that both take part whichever starts first
        java.util.Set<String> started = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.CountDownLatch bothEmitting = new java.util.concurrent.CountDownLatch(2);
        RecordingProvider provider = new RecordingProvider(f.clock, e -> {
            if (started.add(e.owner())) {
                bothEmitting.countDown();
            }
            try {
                bothEmitting.await(30, java.util.concurrent.TimeUnit.SECONDS); // else the owners check below fails
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            return ProviderOutcome.delivered();
        });
        RecordingListener listener = new RecordingListener();
        List<OutboxDrain> drains = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DrainOptions options = DrainFixture.options("worker-" + i).batchSize(7).concurrency(3)
                    .idlePolling(Duration.ofMillis(1), Duration.ofMillis(20)).build();
            drains.add(f.register(f.drainOn(f.newClaimStore(), provider, options).listener(listener).build()));
        }

        drains.forEach(OutboxDrain::start);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> f.outbox.all().stream().allMatch(e -> e.status() == EmissionStatus.DELIVERED));
        await().atMost(Duration.ofSeconds(10)).until(() -> listener.idlePolls.get() > 0);
        drains.forEach(OutboxDrain::close);

        assertThat(provider.emissions).hasSize(500);
        assertThat(provider.emissions).extracting(RecordingProvider.Emission::entryId).doesNotHaveDuplicates();
        assertThat(provider.emissions).extracting(RecordingProvider.Emission::owner).contains("worker-0", "worker-1");
        assertThat(listener.abandoned).isEmpty();
        assertThat(listener.refused).isEmpty();
        assertThat(f.leases.heldCount()).isZero();
    }

    @Test
    void drainUntilIdleRunsCyclesUntilOneFindsNothing() {
        f.enqueue(25);
        OutboxDrain drain = f.drain("worker-a", RecordingProvider.delivering(f.clock));

        assertThat(drain.drainUntilIdle(1)).as("bounded by maxCycles").isEqualTo(new CycleResult(10, 10, 0, 0, 0, 0, 0, 0));
        assertThat(drain.drainUntilIdle(100)).isEqualTo(new CycleResult(15, 15, 0, 0, 0, 0, 0, 0));
        assertThat(drain.drainUntilIdle(100)).isEqualTo(CycleResult.EMPTY);
        assertThatThrownBy(() -> drain.drainUntilIdle(0)).hasMessage("maxCycles must be at least 1, was 0");
    }

    @Test
    void aListenerThatThrowsChangesNothing() {
        f.enqueue(3);
        DrainListener throwing = new DrainListener() {
            @Override
            public void emitted(Envelope envelope, ProviderOutcome outcome, Duration latency) {
                throw new IllegalStateException("metrics backend down");
            }

            @Override
            public void batchClaimed(int count) {
                throw new IllegalStateException("metrics backend down");
            }
        };
        OutboxDrain drain = f.register(f.drainOn(f.newClaimStore(), RecordingProvider.delivering(f.clock),
                DrainFixture.options("worker-a").build()).listener(throwing).build());

        assertThat(drain.runOnce().delivered()).isEqualTo(3);
    }

    @Test
    void aDrainStartsOnceAndClosesIdempotently() {
        OutboxDrain drain = f.drain("worker-a", RecordingProvider.delivering(f.clock));

        drain.start();
        assertThat(drain.state()).isEqualTo(OutboxDrain.State.RUNNING);
        assertThatThrownBy(drain::start).isInstanceOf(IllegalStateException.class)
                .hasMessage("OutboxDrain worker-a cannot start: it is RUNNING");
        drain.close();
        drain.close();
        assertThat(drain.state()).isEqualTo(OutboxDrain.State.CLOSED);
    }
}
