package dev.leasebox.jdbc.dialect;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PgArraysTest {

    @Test
    void epochMicrosTruncatesTowardThePastOnBothSidesOfTheEpoch() {
        assertThat(PgArrays.epochMicros(Instant.parse("2026-01-01T00:00:00.123456789Z")))
                .isEqualTo(1_767_225_600_123_456L);
        assertThat(PgArrays.epochMicros(Instant.EPOCH)).isZero();
        assertThat(PgArrays.epochMicros(Instant.parse("1969-12-31T23:59:59.999999999Z"))).isEqualTo(-1L);
        assertThat(PgArrays.epochMicros(Instant.parse("1969-12-31T23:59:59.000000001Z"))).isEqualTo(-1_000_000L);
        for (String s : List.of("2026-12-05T15:13:48.000000999Z", "1950-06-01T12:00:00.5Z", "2200-01-01T00:00:00.000001Z")) {
            Instant instant = Instant.parse(s);
            assertThat(PgArrays.epochMicros(instant))
                    .isEqualTo(ChronoUnit.MICROS.between(Instant.EPOCH, EntryRows.micros(instant)));
        }
    }

    @Test
    void absentInstantsStayNullAndColumnsKeepTheRowsOrder() {
        List<Instant> rows = Arrays.asList(Instant.ofEpochSecond(1), null, Instant.ofEpochSecond(3));
        assertThat(PgArrays.epochMicros(rows, i -> i)).containsExactly(1_000_000L, null, 3_000_000L);
        assertThat(PgArrays.longs(List.of(5L, 6L), Long::longValue)).containsExactly(5L, 6L);
        assertThat(PgArrays.booleans(List.of("a", ""), String::isEmpty)).containsExactly(false, true);
        assertThat(PgArrays.strings(Arrays.asList("a", null), s -> s)).containsExactly("a", null);
        assertThat(PgArrays.nullableInts(Arrays.asList(1, null), i -> i)).containsExactly(1, null);
    }
}
