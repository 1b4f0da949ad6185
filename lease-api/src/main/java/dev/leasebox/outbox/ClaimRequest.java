package dev.leasebox.outbox;

import java.time.Duration;
import java.util.Objects;

/**
 * A request to claim up to {@link #batchSize()} eligible entries for {@link #owner()}.
 *
 * @param owner         the claiming worker; stable across restarts is fine, tokens tell claims apart
 * @param batchSize     the most entries to claim in this call (1..10000)
 * @param leaseDuration how long the claim lasts unless renewed
 */
public record ClaimRequest(String owner, int batchSize, Duration leaseDuration) {

    public static final int MAX_BATCH_SIZE = 10_000;

    public ClaimRequest {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("claim owner must not be blank");
        }
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batchSize must be in 1.." + MAX_BATCH_SIZE + ", was " + batchSize);
        }
        if (leaseDuration.isNegative() || leaseDuration.isZero()) {
            throw new IllegalArgumentException("leaseDuration must be positive, was " + leaseDuration);
        }
    }
}
