package dev.leasebox.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * A batched request for leases: the manager grants a subset of {@link #keys()} to {@link #owner()},
 * at most {@link #maxGrants()} of them, in one round trip to its coordinator.
 *
 * <p>A caller that expects some keys to be taken by others asks for more keys than it wants and
 * caps the grants ({@link #limitedTo(int)}): the coordinator skips the held keys and fills the
 * batch from the rest, in the same round trip, instead of the caller coming back for more.
 *
 * @param keys         distinct keys to lease, in the caller's preferred order; duplicates are dropped
 * @param owner        the requesting owner (worker id); stable names are fine, the fence tells grants apart
 * @param ttl          the lease duration; a manager whose coordinator fixes the duration (Hazelcast CP
 *                     sessions) validates it at construction and documents what it enforces
 * @param safetyMargin subtracted from the ttl for the holder's local deadline, to absorb clock drift
 *                     and the request's own latency
 * @param maxGrants    the most keys to grant, at least 1 (0 only for no keys); more than the distinct
 *                     keys means all of them. Managers prefer keys in request order where they can.
 */
public record LeaseRequest(List<String> keys, String owner, Duration ttl, Duration safetyMargin, int maxGrants) {

    /** The default safety margin: a tenth of the ttl, at most two seconds. */
    public static Duration defaultSafetyMargin(Duration ttl) {
        Duration tenth = ttl.dividedBy(10);
        Duration cap = Duration.ofSeconds(2);
        return tenth.compareTo(cap) > 0 ? cap : tenth;
    }

    public LeaseRequest {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(safetyMargin, "safetyMargin");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("owner must not be blank");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        if (safetyMargin.isNegative() || safetyMargin.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException("safetyMargin must be in [0, ttl), was " + safetyMargin + " for ttl " + ttl);
        }
        LinkedHashSet<String> distinct = new LinkedHashSet<>(Math.max(16, keys.size() * 4 / 3 + 1));
        for (String key : keys) {
            Objects.requireNonNull(key, "keys must not contain null");
            if (key.isBlank()) {
                throw new IllegalArgumentException("a lease key must not be blank");
            }
            distinct.add(key);
        }
        keys = List.copyOf(distinct);
        if (maxGrants < 1 && !keys.isEmpty()) {
            throw new IllegalArgumentException("maxGrants must be at least 1, was " + maxGrants);
        }
        maxGrants = Math.min(Math.max(maxGrants, 0), keys.size());
    }

    /** A request that may grant every key. */
    public LeaseRequest(List<String> keys, String owner, Duration ttl, Duration safetyMargin) {
        this(keys, owner, ttl, safetyMargin, Integer.MAX_VALUE);
    }

    /** A request that may grant every key, with the {@link #defaultSafetyMargin default safety margin}. */
    public LeaseRequest(Collection<String> keys, String owner, Duration ttl) {
        this(new ArrayList<>(keys), owner, ttl, defaultSafetyMargin(ttl));
    }

    /** This request granting at most {@code max} keys (at least 1). */
    public LeaseRequest limitedTo(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("a request's grant limit must be at least 1, was " + max);
        }
        return new LeaseRequest(keys, owner, ttl, safetyMargin, max);
    }

    /** Whether fewer grants are allowed than there are keys. */
    public boolean limited() {
        return maxGrants < keys.size();
    }

    /** The conservative local deadline of a lease granted by a request sent at {@code sentAt}. */
    public Instant localDeadline(Instant sentAt) {
        return sentAt.plus(ttl).minus(safetyMargin);
    }

    /** A lease for {@code key} granted by this request, sent at {@code sentAt}, with {@code fence}. */
    public Lease grant(String key, long fence, Instant sentAt) {
        return new Lease(key, owner, fence, sentAt, ttl, localDeadline(sentAt));
    }
}
