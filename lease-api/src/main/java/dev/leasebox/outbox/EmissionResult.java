package dev.leasebox.outbox;

import java.time.Instant;
import java.util.Objects;

/**
 * What a provider reported for a successful emission.
 *
 * @param deliveredAt when the provider accepted the envelope
 * @param detail      provider reference (message id, HTTP status line), empty when none
 */
public record EmissionResult(Instant deliveredAt, String detail) {

    public EmissionResult {
        Objects.requireNonNull(deliveredAt, "deliveredAt");
        Objects.requireNonNull(detail, "detail");
    }

    public static EmissionResult at(Instant deliveredAt) {
        return new EmissionResult(deliveredAt, "");
    }
}
