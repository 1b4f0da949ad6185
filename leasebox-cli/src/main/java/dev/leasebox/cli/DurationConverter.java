package dev.leasebox.cli;

import dev.leasebox.DurationText;
import picocli.CommandLine;

import java.time.Duration;

/** Picocli's reading of the CLI-only duration flags ({@code --retain-delivered}, …), as {@link DurationText} reads them. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** {@code d} as people write it: {@code 30s}, {@code 1m30s}, {@code 1s500ms}, {@code 0s}. */
    static String format(Duration d) {
        return DurationText.format(d);
    }

    /** Parses {@code value} as people write it; a picocli conversion error names what to write. */
    public static Duration parse(String value) {
        try {
            return DurationText.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
