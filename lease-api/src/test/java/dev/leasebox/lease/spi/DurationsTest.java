package dev.leasebox.lease.spi;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void readsUnitsCompoundsZeroAndIso() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("2M")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h 2m 3s 500ms")).isEqualTo(Duration.ofMillis(3_723_500));
        assertThat(Durations.parse("1d12h")).isEqualTo(Duration.ofHours(36));
        assertThat(Durations.parse(" 0 ")).isEqualTo(Duration.ZERO);
        assertThat(Durations.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("pt0.5s")).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void refusesBareNumbersWrongOrderAndBlanksNamingTheOptionAndTheForms() {
        assertThatThrownBy(() -> Durations.parse("session-timeout", "5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("session-timeout: '5000' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
        assertThatThrownBy(() -> Durations.parse("30s1m")).hasMessageContaining("'30s1m' is not a duration");
        assertThatThrownBy(() -> Durations.parse("")).hasMessageContaining("'' is not a duration");
        assertThatThrownBy(() -> Durations.parse("99999999999999999999d")).hasMessageContaining("too long");
    }

    @Test
    void formatsWhatItReadsBack() {
        for (Duration d : new Duration[]{Duration.ofSeconds(30), Duration.ofSeconds(90), Duration.ofMillis(1500),
                Duration.ofHours(36), Duration.ZERO, Duration.ofDays(7)}) {
            assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
        }
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(Durations.format(Duration.ofNanos(1500))).isEqualTo("PT0.0000015S");
        assertThat(Durations.parse(Durations.format(Duration.ofNanos(1500)))).isEqualTo(Duration.ofNanos(1500));
    }
}
