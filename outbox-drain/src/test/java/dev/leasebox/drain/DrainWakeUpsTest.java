package dev.leasebox.drain;

import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.wakeup.WakeUp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Hints against a drain whose idle poll is 30 s: only a hint can explain a look within the Awaitility bound.
 */
class DrainWakeUpsTest {

    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(10);

    private final DrainFixture f = new DrainFixture();

    @AfterEach
    void closeFixture() {
        f.close();
    }

    @Test
    void aCommittedHintMakesAnIdleLoopLookAtOnce() {
        RecordingListener listener = new RecordingListener();
        RecordingProvider provider = RecordingProvider.delivering(f.clock);
        OutboxDrain drain = started(provider, listener, 1);
        await().atMost(BOUND).until(() -> listener.idlePolls.get() >= 1);

        long id = f.enqueue(1).get(0).id();
        drain.wakeUp(WakeUp.COMMITTED);

        await().atMost(BOUND).until(() -> provider.emissionsOf(id) == 1);
    }

    @Test
    void aPendingCommitIsLookedForShortlyAfterwardsAndAgain() {
        RecordingListener listener = new RecordingListener();
        RecordingProvider provider = RecordingProvider.delivering(f.clock);
        OutboxDrain drain = started(provider, listener, 1);
        await().atMost(BOUND).until(() -> listener.idlePolls.get() >= 1);

        drain.wakeUp(WakeUp.COMMIT_PENDING);
        await("the burst's first look, before the commit").atMost(BOUND).until(() -> listener.idlePolls.get() >= 2);
        long id = f.enqueue(1).get(0).id(); // the commit the hint announced

        await("a later look of the burst").atMost(BOUND).until(() -> provider.emissionsOf(id) == 1);
    }

    @Test
    void aLoopThatTakesAFullBatchWakesAnotherThatDoesNotPoll() throws Exception {
        CountDownLatch anotherLoopEmitted = new CountDownLatch(1);
        AtomicReference<Thread> first = new AtomicReference<>();
        RecordingProvider provider = new RecordingProvider(f.clock, envelope -> {
            if (first.compareAndSet(null, Thread.currentThread())) {
                assertThat(anotherLoopEmitted.await(BOUND.toSeconds(), TimeUnit.SECONDS))
                        .as("a second loop took the next batch while the first emitted").isTrue();
            } else if (first.get() != Thread.currentThread()) {
                anotherLoopEmitted.countDown();
            }
            return ProviderOutcome.delivered();
        });
        RecordingListener listener = new RecordingListener();
        OutboxDrain drain = started(provider, listener, 3);
        await().atMost(BOUND).until(() -> listener.idlePolls.get() >= 3);

        f.enqueue(25);
        drain.wakeUp(WakeUp.COMMITTED);

        await().atMost(BOUND).until(() -> provider.emissions.size() >= 25);
        assertThat(anotherLoopEmitted.getCount()).isZero();
    }

    @Test
    void theWakeUpFeedStartsWithTheDrainAndIsClosedWithIt() {
        RecordingListener listener = new RecordingListener();
        RecordingProvider provider = RecordingProvider.delivering(f.clock);
        List<String> events = new CopyOnWriteArrayList<>();
        AtomicReference<OutboxDrain> given = new AtomicReference<>();
        OutboxDrain drain = f.register(f.drainOn(f.newClaimStore(), provider,
                        DrainFixture.options("fed").idlePolling(POLL, POLL).build())
                .listener(listener).wakeUpsFrom(d -> {
                    given.set(d);
                    return new WakeUpFeed() {
                        @Override
                        public void start() {
                            events.add("start");
                        }

                        @Override
                        public void close() {
                            events.add("close");
                        }
                    };
                }).build());
        assertThat(given.get()).isSameAs(drain);
        assertThat(events).isEmpty();

        drain.start();
        assertThat(events).containsExactly("start");
        await().atMost(BOUND).until(() -> listener.idlePolls.get() >= 1);
        long id = f.enqueue(1).get(0).id();
        given.get().wakeUp(WakeUp.COMMITTED);
        await().atMost(BOUND).until(() -> provider.emissionsOf(id) == 1);

        drain.close();
        drain.close();
        assertThat(events).containsExactly("start", "close");
    }

    @Test
    void aFeedWithWakeUpsTurnedOffIsRefused() {
        OutboxDrain.Builder builder = f.drainOn(f.newClaimStore(), RecordingProvider.delivering(f.clock),
                        DrainFixture.options("contradicted").build())
                .wakeUpsFrom(d -> null).wakeUps(false);

        assertThatThrownBy(builder::build).isInstanceOf(DrainConfigurationException.class)
                .hasMessageContaining("wakeUps(false) contradicts wakeUpsFrom(...)");
    }

    private OutboxDrain started(RecordingProvider provider, RecordingListener listener, int concurrency) {
        OutboxDrain drain = f.register(f.drainOn(f.newClaimStore(), provider,
                        DrainFixture.options("woken").concurrency(concurrency).idlePolling(POLL, POLL).build())
                .listener(listener).wakeUps(true).build());
        drain.start();
        return drain;
    }
}
