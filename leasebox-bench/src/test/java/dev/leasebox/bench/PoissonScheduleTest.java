package dev.leasebox.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class PoissonScheduleTest {

    @Test
    void theMeanGapOfManyDrawsIsOneOverTheRate() {
        PoissonSchedule schedule = new PoissonSchedule(1_000, 7);
        int draws = 200_000;
        long last = 0;
        double sumOfSquares = 0;
        for (int i = 0; i < draws; i++) {
            long next = schedule.next();
            assertThat(next).isGreaterThan(last);
            double gap = next - last;
            sumOfSquares += gap * gap;
            last = next;
        }
        double mean = (double) last / draws;
        assertThat(mean).as("1,000 rows/s: 1 ms apart on average").isCloseTo(1_000_000, within(10_000.0));
        double sd = Math.sqrt(sumOfSquares / draws - mean * mean);
        assertThat(sd).as("exponential gaps: the standard deviation equals the mean").isCloseTo(mean, within(mean * 0.02));
    }

    @Test
    void theSameSeedPlansTheSameArrivals() {
        PoissonSchedule a = new PoissonSchedule(2, 1);
        PoissonSchedule b = new PoissonSchedule(2, 1);
        PoissonSchedule other = new PoissonSchedule(2, 2);
        long[] first = new long[5];
        boolean differs = false;
        for (int i = 0; i < 5; i++) {
            first[i] = a.next();
            assertThat(b.next()).isEqualTo(first[i]);
            differs |= other.next() != first[i];
        }
        assertThat(differs).isTrue();
    }

    @Test
    void inverseTransformOfTheUniformDraw() {
        assertThat(PoissonSchedule.gap(0, 5)).isZero();
        assertThat(PoissonSchedule.gap(1 - Math.exp(-1), 5)).isCloseTo(5, within(1e-9));
        assertThat(PoissonSchedule.gap(0.5, 1)).isCloseTo(Math.log(2), within(1e-12));
    }

    @Test
    void aRateMustBePositive() {
        assertThatThrownBy(() -> new PoissonSchedule(0, 1)).hasMessageContaining("positive number of rows a second");
        assertThatThrownBy(() -> new PoissonSchedule(Double.NaN, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
