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

    @Test
    void theMultiplierSetsTheGrowthOfTheCeiling() {
        Backoff triple = new Backoff(Duration.ofMillis(500), 3.0, CAP, 0.0, new Random(3));
        assertThat(triple.ceilingAfter(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(triple.ceilingAfter(2)).isEqualTo(Duration.ofMillis(1500));
        assertThat(triple.ceilingAfter(4)).isEqualTo(Duration.ofMillis(13_500));
        assertThat(triple.ceilingAfter(7)).isEqualTo(CAP);
        assertThat(triple.ceilingAfter(Integer.MAX_VALUE)).isEqualTo(CAP);
        Backoff gentle = new Backoff(INITIAL, 1.5, CAP, 0.0, new Random(3));
        assertThat(gentle.ceilingAfter(3)).isEqualTo(Duration.ofMillis(2250));
        Backoff constant = new Backoff(INITIAL, 1.0, CAP, 0.0, new Random(3));
        assertThat(constant.ceilingAfter(50)).isEqualTo(INITIAL);
    }

    @Test
    void noJitterWaitsExactlyTheCeiling() {
        Backoff exact = new Backoff(INITIAL, 2.0, CAP, 0.0, new Random(3));
        for (int attempt = 1; attempt <= 12; attempt++) {
            assertThat(exact.delayAfter(attempt)).isEqualTo(exact.ceilingAfter(attempt));
        }
    }

    @Test
    void partialJitterDrawsFromTheTopFractionOfTheCeilingReproduciblyWithASeed() {
        Backoff a = new Backoff(Duration.ofSeconds(10), 2.0, CAP, 0.2, new Random(42));
        Backoff b = new Backoff(Duration.ofSeconds(10), 2.0, CAP, 0.2, new Random(42));
        assertThat(a.floorAfter(1)).isEqualTo(Duration.ofSeconds(8));
        assertThat(a.floorAfter(3)).isEqualTo(Duration.ofSeconds(32));
        Set<Duration> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            Duration delay = a.delayAfter(3);
            assertThat(delay).isBetween(Duration.ofSeconds(32), Duration.ofSeconds(40));
            assertThat(b.delayAfter(3)).as("same seed, same draws").isEqualTo(delay);
            seen.add(delay);
        }
        assertThat(seen).as("spread over the window").hasSizeGreaterThan(400);
        assertThat(seen.stream().min(Duration::compareTo).orElseThrow()).isLessThan(Duration.ofSeconds(33));
        assertThat(seen.stream().max(Duration::compareTo).orElseThrow()).isGreaterThan(Duration.ofSeconds(39));
    }

    @Test
    void badSettingsAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> new Backoff(INITIAL, 0.5, CAP, 1.0, new Random(1)))
                .hasMessage("backoff multiplier must be in 1..100, was 0.5");
        assertThatThrownBy(() -> new Backoff(INITIAL, 2.0, CAP, 1.5, new Random(1)))
                .hasMessage("backoff jitter must be in 0..1, was 1.5");
        assertThatThrownBy(() -> new Backoff(INITIAL, Double.NaN, CAP, 1.0, new Random(1)))
                .hasMessage("backoff multiplier must be in 1..100, was NaN");
    }
}
