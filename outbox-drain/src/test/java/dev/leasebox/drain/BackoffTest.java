package dev.leasebox.drain;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

    private static final Duration INITIAL = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(5);

    @Test
    void ceilingDoublesFromTheInitialDelayUpToTheCap() {
        Backoff backoff = new Backoff(INITIAL, CAP, new Random(1));

        assertThat(backoff.ceilingAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.ceilingAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.ceilingAfter(5)).isEqualTo(Duration.ofSeconds(16));
        assertThat(backoff.ceilingAfter(9)).isEqualTo(Duration.ofSeconds(256));
        assertThat(backoff.ceilingAfter(10)).isEqualTo(CAP);
        assertThat(backoff.ceilingAfter(Integer.MAX_VALUE)).as("no overflow for absurd attempt counts").isEqualTo(CAP);
        assertThatThrownBy(() -> backoff.ceilingAfter(0)).hasMessage("attempt counts from 1, was 0");
    }

    @Test
    void fullJitterDrawsEveryDelayFromZeroToTheCeiling() {
        Backoff backoff = new Backoff(INITIAL, CAP, new Random(7));
        for (int attempt = 1; attempt <= 40; attempt++) {
            Set<Duration> seen = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                Duration delay = backoff.delayAfter(attempt);
                assertThat(delay).isBetween(Duration.ZERO, backoff.ceilingAfter(attempt));
                assertThat(delay).isLessThanOrEqualTo(CAP);
                seen.add(delay);
            }
            assertThat(seen).as("attempt %d delays are jittered, not fixed", attempt).hasSizeGreaterThan(50);
        }
    }

    @Test
    void theExtremesOfTheGeneratorMapToZeroAndToTheCeiling() {
        RandomGenerator lowest = new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public long nextLong(long bound) {
                return 0;
            }
        };
        RandomGenerator highest = new RandomGenerator() {
            @Override
            public long nextLong() {
                return Long.MAX_VALUE;
            }

            @Override
            public long nextLong(long bound) {
                return bound - 1;
            }
        };

        assertThat(new Backoff(INITIAL, CAP, lowest).delayAfter(4)).isEqualTo(Duration.ZERO);
        assertThat(new Backoff(INITIAL, CAP, highest).delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(new Backoff(INITIAL, CAP, highest).delayAfter(30)).isEqualTo(CAP);
    }
}
