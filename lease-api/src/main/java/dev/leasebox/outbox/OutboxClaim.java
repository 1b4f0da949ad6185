package dev.leasebox.outbox;

import java.time.Instant;
import java.util.Objects;

/**
 * A claim over one outbox row: proof that {@link #owner()} may emit {@link #entry()} until
 * {@link #expiresAt()}, and the token every completion must present.
 *
 * @param entry             the entry as it was when claimed (its claim fields set to this claim)
 * @param owner             the claim owner
 * @param token             the fencing token; the row's {@code claim_token} while this claim stands
 * @param claimedAt         when the claim was made
 * @param expiresAt         when the claim lapses unless renewed; then the row may be reclaimed
 * @param claimAttemptCount how many times this row has been claimed, this claim included
 */
public record OutboxClaim(OutboxEntry entry, String owner, long token, Instant claimedAt, Instant expiresAt,
                          int claimAttemptCount) {

    public OutboxClaim {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(claimedAt, "claimedAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (token <= 0) {
            throw new IllegalArgumentException("claim token must be positive, was " + token);
        }
    }

    public long entryId() {
        return entry.id();
    }

    /** The same claim with a new expiry, after a renewal. */
    public OutboxClaim withExpiresAt(Instant newExpiresAt) {
        return new OutboxClaim(entry, owner, token, claimedAt, newExpiresAt, claimAttemptCount);
    }
}
