package dev.leasebox;

import dev.leasebox.lease.spi.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/** Reads one setting's text, refusing a bad value in one line that starts with the key as the user wrote it. */
final class SettingText {

    private SettingText() {
    }

    static int whole(String key, String text, int min, int max) {
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, was '" + text + "'");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(max == Integer.MAX_VALUE ? key + " must be at least " + min + ", was " + value
                    : key + " must be in " + min + ".." + max + ", was " + value);
        }
        return value;
    }

    static double fraction(String key, String text, double min, double max, String meaning) {
        double value;
        try {
            value = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number, was '" + text + "'");
        }
        if (!(value >= min && value <= max)) {
            throw new IllegalArgumentException(key + " must be between " + plain(min) + " and " + plain(max) + meaning
                    + ", was " + text.trim());
        }
        return value;
    }

    static Duration duration(String key, String text, Duration min, String why) {
        Duration value;
        try {
            value = Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage());
        }
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(key + " must be at least " + Durations.format(min) + why + ", was "
                    + Durations.format(value));
        }
        return value;
    }

    static boolean bool(String key, String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false, was '" + text + "'");
        };
    }

    /** One of {@code choices} (kebab-case, any case), parsed by {@code parse}. */
    static <T> T choice(String key, String text, String choices, Function<String, T> parse) {
        try {
            return parse.apply(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": choose " + choices + ", was '" + text + "'");
        }
    }

    static String text(String key, String text) {
        if (text.isBlank()) {
            throw new IllegalArgumentException(key + " must not be blank when set");
        }
        return text.trim();
    }

    private static String plain(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
