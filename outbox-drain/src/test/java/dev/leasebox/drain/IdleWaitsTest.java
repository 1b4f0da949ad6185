package dev.leasebox.drain;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class IdleWaitsTest {

    private static final Duration MIN = Duration.ofMillis(100);
    private static final Duration MAX = Duration.ofSeconds(1);

    @Test
    void aPollingLoopDoublesItsWaitUpToTheCapAndStartsOverWhenBusy() {
        IdleWaits waits = new IdleWaits(MIN, MAX, true);
        assertThat(waitsAfterTimeouts(waits, 6)).containsExactly(ms(100), ms(200), ms(400), ms(800), ms(1000), ms(1000));
        waits.busy();
        assertThat(waits.next()).contains(MIN);
    }

    @Test
    void aLoopThatDoesNotPollLooksThreeTimesAfterItTookEntriesThenWaitsForAHintHoweverLong() {
        IdleWaits waits = new IdleWaits(MIN, MAX, false);
        assertThat(waits.next()).isEmpty();
        waits.busy();
        List<Optional<Duration>> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            seen.add(waits.next());
            waits.timedOut();
        }
        assertThat(seen).containsExactly(Optional.of(ms(100)), Optional.of(ms(200)), Optional.of(ms(400)), Optional.empty());
    }

    @Test
    void aPendingCommitBurstsFiveLooksThenTheBackoffResumesWhereItWas() {
        IdleWaits waits = new IdleWaits(Duration.ofSeconds(30), Duration.ofSeconds(30), true);
        waits.commitPending();
        assertThat(waitsAfterTimeouts(waits, 6)).containsExactly(ms(5), ms(10), ms(20), ms(40), ms(80), ms(30_000));
    }

    @Test
    void aBurstOfALoopThatDoesNotPollEndsInWaitingForHints() {
        IdleWaits waits = new IdleWaits(MIN, MAX, false);
        waits.commitPending();
        List<Optional<Duration>> seen = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            seen.add(waits.next());
            waits.timedOut();
        }
        assertThat(seen).containsExactly(Optional.of(ms(5)), Optional.of(ms(10)), Optional.of(ms(20)), Optional.of(ms(40)),
                Optional.of(ms(80)), Optional.empty());
    }

    @Test
    void aBurstNeverWaitsLongerThanTheBackoffAndABusyCycleEndsIt() {
        IdleWaits waits = new IdleWaits(Duration.ofMillis(10), Duration.ofMillis(10), true);
        waits.commitPending();
        assertThat(waitsAfterTimeouts(waits, 3)).containsExactly(ms(5), ms(10), ms(10));
        waits.commitPending();
        waits.busy();
        assertThat(waits.next()).contains(ms(10));
    }

    private static List<Duration> waitsAfterTimeouts(IdleWaits waits, int count) {
        List<Duration> seen = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            seen.add(waits.next().orElseThrow());
            waits.timedOut();
        }
        return seen;
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
