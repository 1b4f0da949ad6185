package dev.leasebox.lease.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one way Leasebox reads a duration written as text, wherever it is written: a CLI flag, a
 * {@code --backend-option}, a Spring property. Accepted: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
 * {@code 7d}, compounds with the largest unit first ({@code 1m30s}, {@code 1s500ms}), {@code 0}, and ISO-8601
 * ({@code PT10S}). A bare number other than {@code 0} is refused: its unit would be a guess.
 */
public final class Durations {

    /** The accepted forms, as error messages list them. */
    public static final String FORMS = "500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S";

    private static final Pattern COMPOUND = Pattern.compile(
            "(?:(\\d+)\\s*d)?\\s*(?:(\\d+)\\s*h)?\\s*(?:(\\d+)\\s*m(?!s))?\\s*(?:(\\d+)\\s*s)?\\s*(?:(\\d+)\\s*ms)?");

    private Durations() {
    }

    /**
     * {@code value} as a duration; fails with one line naming {@code option} (as the user wrote it, e.g.
     * {@code session-timeout}), the value and the accepted forms.
     */
    public static Duration parse(String option, String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    /** {@code value} as a duration; fails with one line naming the value and the accepted forms. */
    public static Duration parse(String value) {
        String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = COMPOUND.matcher(text);
        if (!text.isEmpty() && m.matches()) {
            try {
                return Duration.ofDays(number(m.group(1))).plusHours(number(m.group(2))).plusMinutes(number(m.group(3)))
                        .plusSeconds(number(m.group(4))).plusMillis(number(m.group(5)));
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("'" + value + "' is too long a duration");
            }
        }
        try {
            return Duration.parse(text.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + value + "' is not a duration: write e.g. " + FORMS);
        }
    }

    /** {@code d} in the form {@link #parse} reads back: {@code 30s}, {@code 1m30s}, {@code 1s500ms}, {@code 0s}. */
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
        if (d.toNanosPart() % 1_000_000 != 0) {
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
