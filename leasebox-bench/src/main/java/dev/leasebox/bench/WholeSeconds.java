package dev.leasebox.bench;

import dev.leasebox.cli.DurationConverter;
import picocli.CommandLine;

import java.time.Duration;

/**
 * The bench's durations, written as every other duration option of the command ({@code 10s}, {@code 1m30s},
 * {@code PT10S}), or as a bare number of seconds; they count whole seconds.
 */
final class WholeSeconds implements CommandLine.ITypeConverter<Integer> {

    @Override
    public Integer convert(String value) {
        Duration d = value.trim().matches("\\d+") ? Duration.ofSeconds(Long.parseLong(value.trim()))
                : DurationConverter.parse(value);
        if (d.toNanosPart() != 0) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a whole number of seconds: write e.g. 10s or 1m30s");
        }
        return Math.toIntExact(d.getSeconds());
    }
}
