package dev.leasebox.drain;

import dev.leasebox.wakeup.WakeUp;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WakeSignalTest {

    private static final Optional<Duration> NO_WAIT = Optional.of(Duration.ZERO);

    @Test
    void hintsGivenWhileNoLoopWaitsAreKeptOncePerKind() {
        WakeSignal signal = new WakeSignal();
        signal.wake(WakeUp.COMMIT_PENDING);
        signal.wake(WakeUp.COMMITTED);
        signal.wake(WakeUp.COMMITTED);
        assertThat(signal.await(NO_WAIT)).isEqualTo(WakeSignal.Outcome.COMMITTED);
        assertThat(signal.await(NO_WAIT)).isEqualTo(WakeSignal.Outcome.COMMIT_PENDING);
        assertThat(signal.await(NO_WAIT)).isEqualTo(WakeSignal.Outcome.TIMED_OUT);
    }

    @Test
    void aHandOffReachesOnlyALoopThatWaits() throws Exception {
        WakeSignal signal = new WakeSignal();
        signal.handOff();
        assertThat(signal.await(NO_WAIT)).as("no loop waited: nothing kept").isEqualTo(WakeSignal.Outcome.TIMED_OUT);

        CompletableFuture<WakeSignal.Outcome> waiting = CompletableFuture.supplyAsync(() -> signal.await(Optional.empty()));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            signal.handOff();
            return waiting.isDone();
        });
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo(WakeSignal.Outcome.COMMITTED);
    }

    @Test
    void aHintWakesALoopWaitingWithoutATimeoutAndStopEndsEveryWait() throws Exception {
        WakeSignal signal = new WakeSignal();
        CompletableFuture<WakeSignal.Outcome> woken = CompletableFuture.supplyAsync(() -> signal.await(Optional.empty()));
        signal.wake(WakeUp.COMMITTED);
        assertThat(woken.get(10, TimeUnit.SECONDS)).isEqualTo(WakeSignal.Outcome.COMMITTED);

        CompletableFuture<WakeSignal.Outcome> stopped = CompletableFuture.supplyAsync(() -> signal.await(Optional.empty()));
        signal.stop();
        assertThat(stopped.get(10, TimeUnit.SECONDS)).isEqualTo(WakeSignal.Outcome.STOPPED);
        signal.wake(WakeUp.COMMITTED);
        assertThat(signal.await(NO_WAIT)).isEqualTo(WakeSignal.Outcome.STOPPED);
    }
}
