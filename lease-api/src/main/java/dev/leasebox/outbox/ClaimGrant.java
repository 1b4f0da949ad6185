package dev.leasebox.outbox;

import java.time.Instant;
import java.util.Objects;

/**
 * A lease granted for one row, to be recorded as that row's claim.
 *
 * @param entryId   the row
 * @param owner     the lease holder
 * @param token     the lease's fence, to become the row's claim token
 * @param claimedAt when the lease request was sent
 * @param expiresAt when the claim lapses unless renewed
 */
public record ClaimGrant(long entryId, String owner, long token, Instant claimedAt, Instant expiresAt) {
    public ClaimGrant {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(claimedAt, "claimedAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive, was " + token);
        }
    }
}
