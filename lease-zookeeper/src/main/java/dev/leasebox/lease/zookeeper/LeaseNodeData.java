package dev.leasebox.lease.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a lease znode holds: its owner, the deadline written by its holder (the holder's wall clock
 * when it sent the grant or renewal, plus the ttl), the ttl, and the token of this incarnation of the
 * node (see {@link LeasePaths#incarnation}). Encoded as
 * {@code 2|<deadline epoch ms>|<ttl ms>|<token>|<owner>} (the owner last, so it may contain '|').
 * Nodes in any other format, including format 1 which had no token, are never taken over.
 */
record LeaseNodeData(String owner, Instant deadline, Duration ttl, String token) {

    private static final String VERSION = "2";

    LeaseNodeData {
        if (!LeasePaths.isToken(token)) {
            throw new IllegalArgumentException("not an incarnation token: " + token);
        }
    }

    byte[] encode() {
        return (VERSION + "|" + deadline.toEpochMilli() + "|" + ttl.toMillis() + "|" + token + "|" + owner)
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The decoded data, or empty when the node was not written in this format (then it is never taken over). */
    static Optional<LeaseNodeData> decode(byte[] bytes) {
        if (bytes == null) {
            return Optional.empty();
        }
        String[] parts = new String(bytes, StandardCharsets.UTF_8).split("\\|", 5);
        if (parts.length != 5 || !VERSION.equals(parts[0]) || !LeasePaths.isToken(parts[3])) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LeaseNodeData(parts[4], Instant.ofEpochMilli(Long.parseLong(parts[1])),
                    Duration.ofMillis(Long.parseLong(parts[2])), parts[3]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether a taker whose wall clock reads {@code now} may take this node over: only once {@code now}
     * is past the written deadline by more than {@code maxClockSkew}.
     */
    boolean expiredFor(Instant now, Duration maxClockSkew) {
        return now.isAfter(deadline.plus(maxClockSkew));
    }
}
