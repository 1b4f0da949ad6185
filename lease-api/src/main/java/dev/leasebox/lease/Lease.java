package dev.leasebox.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One key held by one owner, as granted by a {@link LeaseManager}.
 *
 * <p>Guarantee: while the lease manager's own clock has not passed the lease's expiry, no other
 * owner holds {@link #key()}. The {@link #fence()} is strictly greater than the fence of every
 * earlier grant of the same key by the same coordinator, so a write guarded by "my fence is still
 * the newest" can never be made by a holder that was superseded.
 *
 * <p>{@link #localDeadline()} is conservative: it is computed from the instant the request was
 * <em>sent</em>, plus the ttl, minus a safety margin (see {@link LeaseRequest#safetyMargin()}). The
 * coordinator's clock decides real expiry; a holder that stops acting before its local deadline
 * never acts on an expired lease unless the clocks drift by more than the margin.
 *
 * @param key           the leased key, unique within the manager's namespace
 * @param owner         the owner that requested the lease
 * @param fence         the fencing token of this grant; strictly increasing per key across grants
 * @param grantedAt     when the request that granted this lease, or last renewed it, was sent (local clock)
 * @param ttl           the lease duration the coordinator enforces
 * @param localDeadline the instant after which the holder must consider the lease lost
 */
public record Lease(String key, String owner, long fence, Instant grantedAt, Duration ttl, Instant localDeadline) {

    public Lease {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(grantedAt, "grantedAt");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(localDeadline, "localDeadline");
        if (fence <= 0) {
            throw new IllegalArgumentException("fence must be positive, was " + fence + " for key " + key);
        }
    }

    /** True while the local clock is before the conservative deadline. */
    public boolean isLocallyValid(Instant now) {
        return now.isBefore(localDeadline);
    }

    /** The safety margin this lease was granted with: ttl minus the span from grant to local deadline. */
    public Duration safetyMargin() {
        return ttl.minus(Duration.between(grantedAt, localDeadline));
    }

    /**
     * The same grant after a successful renewal sent at {@code renewalSentAt}: its deadline is
     * {@code renewalSentAt + ttl - margin}. {@link #grantedAt()} moves to the renewal too, so that the
     * margin stays derivable and a lease renewed many times never gets a deadline past the
     * coordinator's expiry.
     */
    public Lease renewed(Instant renewalSentAt) {
        return new Lease(key, owner, fence, renewalSentAt, ttl, renewalSentAt.plus(ttl).minus(safetyMargin()));
    }

    /** Whether {@code other} is the same grant (same key, owner and fence), whatever its deadline. */
    public boolean sameGrant(Lease other) {
        return key.equals(other.key) && owner.equals(other.owner) && fence == other.fence;
    }
}
