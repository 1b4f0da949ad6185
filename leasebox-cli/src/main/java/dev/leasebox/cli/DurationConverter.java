package dev.leasebox.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code 7d}, compounds such
 * as {@code 1m30s} (largest unit first), or ISO-8601 {@code PT30S}.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern COMPOUND = Pattern.compile("(?:(\\d+)\\s*d)?\\s*(?:(\\d+)\\s*h)?\\s*(?:(\\d+)\\s*m(?!s))?\\s*(?:(\\d+)\\s*s)?\\s*(?:(\\d+)\\s*ms)?");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** {@code d} as people write it: {@code 30s}, {@code 1m30s}, {@code 1s500ms}, {@code 0s}; parses back to {@code d}. */
    static String format(Duration d) {
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
        int nanos = d.toNanosPart() % 1_000_000;
        if (nanos != 0 || text.length() == 0) {
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

    /** Parses {@code value} as people write it (see the class); a picocli conversion error names what to write. */
    public static Duration parse(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = COMPOUND.matcher(text);
        if (!text.isEmpty() && m.matches()) {
            try {
                Duration d = Duration.ZERO;
                d = d.plusDays(number(m.group(1))).plusHours(number(m.group(2))).plusMinutes(number(m.group(3)));
                d = d.plusSeconds(number(m.group(4))).plusMillis(number(m.group(5)));
                return d;
            } catch (ArithmeticException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is too long a duration");
            }
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a duration: write e.g. 500ms, 30s, 2m, 1m30s, 1h, 7d or PT30S");
        }
    }
}
