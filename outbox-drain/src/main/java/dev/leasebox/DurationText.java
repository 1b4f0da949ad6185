package dev.leasebox;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code 7d}, compounds such
 * as {@code 1m30s} (largest unit first), or ISO-8601 {@code PT30S}. What {@link LeaseboxSettings} reads and
 * writes back in its messages.
 */
public final class DurationText {

    /** How a duration may be written, for messages. */
    public static final String FORMS = "write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S";

    private static final Pattern COMPOUND = Pattern.compile(
            "(?:(\\d+)\\s*d)?\\s*(?:(\\d+)\\s*h)?\\s*(?:(\\d+)\\s*m(?!s))?\\s*(?:(\\d+)\\s*s)?\\s*(?:(\\d+)\\s*ms)?");

    private DurationText() {
    }

    /**
     * Parses {@code value}; an {@link IllegalArgumentException} says what to write instead.
     */
    public static Duration parse(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = COMPOUND.matcher(text);
        if (!text.isEmpty() && m.matches()) {
            try {
                return Duration.ZERO.plusDays(number(m.group(1))).plusHours(number(m.group(2)))
                        .plusMinutes(number(m.group(3))).plusSeconds(number(m.group(4))).plusMillis(number(m.group(5)));
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("'" + value + "' is too long a duration");
            }
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + value + "' is not a duration: " + FORMS);
        }
    }

    /** {@code d} as people write it: {@code 30s}, {@code 1m30s}, {@code 1s500ms}, {@code 0s}; parses back to {@code d}. */
    public static String format(Duration d) {
        if (d.isNegative()) {
            return "-" + format(d.negated());
        }
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder text = new StringBuilder();
        append(text, d.toDays(), "d");
        append(text, d.toHoursPart(), "h");
        append(text, d.toMinutesPart(), "m");
        append(text, d.toSecondsPart(), "s");
        append(text, d.toMillisPart(), "ms");
        if (d.toNanosPart() % 1_000_000 != 0 || text.length() == 0) {
            return d.toString(); // below a millisecond: ISO-8601 is exact
        }
        return text.toString();
    }

    private static void append(StringBuilder text, long amount, String unit) {
        if (amount != 0) {
            text.append(amount).append(unit);
        }
    }

    private static long number(String digits) {
        return digits == null ? 0 : Long.parseLong(digits);
    }
}
