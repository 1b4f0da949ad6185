package dev.leasebox.jdbc.dialect;

import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A batch's columns as Java arrays that the PostgreSQL driver binds in its binary format
 * ({@code PreparedStatement.setObject(i, long[])} and friends): no element is formatted as text by
 * the client nor parsed by the server. Times travel as microseconds since the epoch (bigint), which
 * the statements turn back into {@code timestamptz} with
 * {@code timestamptz 'epoch' + micros * interval '1 microsecond'}; the driver has no binary form for
 * arrays of timestamps. A text-array literal of 100 timestamps costs the server a parse per element
 * and the client a format per element, on every claim record and every completion.
 */
final class PgArrays {

    private static final long MICROS_PER_SECOND = 1_000_000L;

    private PgArrays() {
    }

    static <T> long[] longs(List<T> rows, ToLongFunction<T> value) {
        long[] out = new long[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value.applyAsLong(rows.get(i));
        }
        return out;
    }

    static <T> int[] ints(List<T> rows, ToIntFunction<T> value) {
        int[] out = new int[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value.applyAsInt(rows.get(i));
        }
        return out;
    }

    /** Integers that may be absent (SQL NULL). */
    static <T> Integer[] nullableInts(List<T> rows, Function<T, Integer> value) {
        Integer[] out = new Integer[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value.apply(rows.get(i));
        }
        return out;
    }

    static <T> boolean[] booleans(List<T> rows, Predicate<T> value) {
        boolean[] out = new boolean[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value.test(rows.get(i));
        }
        return out;
    }

    static <T> String[] strings(List<T> rows, Function<T, String> value) {
        String[] out = new String[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = value.apply(rows.get(i));
        }
        return out;
    }

    /** Instants as microseconds since the epoch; an absent instant stays null (SQL NULL). */
    static <T> Long[] epochMicros(List<T> rows, Function<T, Instant> value) {
        Long[] out = new Long[rows.size()];
        for (int i = 0; i < out.length; i++) {
            Instant instant = value.apply(rows.get(i));
            out[i] = instant == null ? null : epochMicros(instant);
        }
        return out;
    }

    /**
     * Microseconds since the epoch, truncated toward the past as {@link EntryRows#micros} truncates (an
     * instant's nanosecond field is never negative, so this holds before the epoch too).
     */
    static long epochMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), MICROS_PER_SECOND), instant.getNano() / 1_000);
    }
}
