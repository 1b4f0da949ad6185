package dev.leasebox.lease.hazelcast;

import java.time.Duration;
import java.util.Optional;

/**
 * The CP session timing a manager runs under, and what it allows.
 *
 * <p>The cluster frees a silent holder's locks when its CP session expires: {@code sessionTtl}
 * after the last heartbeat that got through, and heartbeats go out every {@code heartbeat}. A
 * holder cut off from the cluster right after a successful call may therefore lose its locks as
 * early as {@code sessionTtl - heartbeat} after that call. A lease ttl longer than that would let a
 * partitioned holder trust a lease the cluster has already handed on, so it is refused.
 *
 * @param sessionTtl the CP session time-to-live
 * @param heartbeat  the CP session heartbeat interval
 * @param source     where these values came from, for messages ("member config", "declared by the client")
 */
record CpSessionTiming(Duration sessionTtl, Duration heartbeat, String source) {

    /** The longest lease ttl this session timing can honour. */
    Duration maxLeaseTtl() {
        return sessionTtl.minus(heartbeat);
    }

    /** How long a crashed holder's keys can stay locked after its last heartbeat. */
    Duration crashedHolderRelease() {
        return sessionTtl.plus(heartbeat);
    }

    /**
     * Checks a ttl at start: empty when it agrees with the session, a one-line warning when the
     * session is much longer (crashed holders keep keys far longer than the ttl says).
     *
     * @throws IllegalArgumentException when the ttl exceeds {@link #maxLeaseTtl()}
     */
    Optional<String> check(Duration leaseTtl) {
        requireAllowed(leaseTtl, "leaseTtl");
        if (leaseTtl.multipliedBy(2).compareTo(maxLeaseTtl()) < 0) {
            return Optional.of("leaseTtl " + leaseTtl + " is under half of what the CP session allows (" + maxLeaseTtl()
                    + ", " + describe() + "): a live holder's lease ends at its ttl, but a crashed holder's keys stay locked up to "
                    + crashedHolderRelease() + "; lower cp-subsystem session-time-to-live-seconds to about leaseTtl + heartbeat");
        }
        return Optional.empty();
    }

    /** Refuses a request ttl above {@link #maxLeaseTtl()}, naming both values. */
    void requireAllowed(Duration ttl, String property) {
        if (ttl.compareTo(maxLeaseTtl()) > 0) {
            throw new IllegalArgumentException(property + " " + ttl + " exceeds the CP session TTL minus heartbeat (" + maxLeaseTtl()
                    + ", " + describe() + "): a holder cut off from the cluster would trust a lease the cluster already freed;"
                    + " raise cp-subsystem session-time-to-live-seconds to at least " + ttl.plus(heartbeat).toSeconds()
                    + " or request at most " + maxLeaseTtl());
        }
    }

    String describe() {
        return "session TTL " + sessionTtl.toSeconds() + " s, heartbeat " + heartbeat.toSeconds() + " s, " + source;
    }
}
