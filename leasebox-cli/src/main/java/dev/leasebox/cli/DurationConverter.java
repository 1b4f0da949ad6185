package dev.leasebox.cli;

import dev.leasebox.lease.spi.Durations;
import picocli.CommandLine;

import java.time.Duration;

/**
 * Durations on the command line, read by the one parser every backend option and Spring property uses
 * ({@link Durations}: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1m30s}, {@code 1h}, {@code 7d}, {@code PT30S});
 * a value it refuses becomes picocli's conversion error, which names the flag.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** {@code d} as people write it: {@code 30s}, {@code 1m30s}, {@code 1s500ms}, {@code 0s}. */
    static String format(Duration d) {
        return Durations.format(d);
    }

    /** Parses {@code value} (see the class); a picocli conversion error names what to write. */
    public static Duration parse(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
