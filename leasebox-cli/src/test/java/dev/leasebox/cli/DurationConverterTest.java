package dev.leasebox.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Durations are read and printed the way people write them. */
class DurationConverterTest {

    @Test
    void compoundDurationsAreAccepted() {
        assertThat(DurationConverter.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(DurationConverter.parse("1h 2m 3s 500ms")).isEqualTo(Duration.ofMillis(3_723_500));
        assertThat(DurationConverter.parse("2M")).isEqualTo(Duration.ofMinutes(2));
        assertThat(DurationConverter.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(DurationConverter.parse("1d12h")).isEqualTo(Duration.ofHours(36));
        assertThat(DurationConverter.parse("PT30S")).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> DurationConverter.parse("30s1m")).isInstanceOf(CommandLine.TypeConversionException.class);
        assertThatThrownBy(() -> DurationConverter.parse("")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void durationsArePrintedAsPeopleWriteThem() {
        assertThat(DurationConverter.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(DurationConverter.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(DurationConverter.format(Duration.ofMillis(1500))).isEqualTo("1s500ms");
        assertThat(DurationConverter.format(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(DurationConverter.format(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(DurationConverter.format(Duration.ofHours(36))).isEqualTo("1d12h");
        assertThat(DurationConverter.format(Duration.ZERO)).isEqualTo("0s");
    }
}
