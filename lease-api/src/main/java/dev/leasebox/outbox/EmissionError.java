package dev.leasebox.outbox;

import java.util.Objects;

/**
 * Why an emission failed.
 *
 * @param code      a short machine-readable classification (exception class, HTTP status)
 * @param message   what went wrong, for the entry's last error and for operators
 * @param permanent true when retrying cannot help (the entry is dead-lettered at once)
 */
public record EmissionError(String code, String message, boolean permanent) {

    public EmissionError {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    public static EmissionError retryable(String code, String message) {
        return new EmissionError(code, message, false);
    }

    public static EmissionError permanent(String code, String message) {
        return new EmissionError(code, message, true);
    }

    /** One line for the entry's last-error column. */
    public String describe() {
        return code + ": " + message;
    }
}
