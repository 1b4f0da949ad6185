package dev.leasebox.lease.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a lease znode holds: its owner, the deadline after which others may take it over, and the ttl
 * it was granted or renewed with. Encoded as {@code 1|<deadline epoch ms>|<ttl ms>|<owner>} (the owner
 * last, so it may contain '|').
 */
record LeaseNodeData(String owner, Instant deadline, Duration ttl) {

    private static final String VERSION = "1";

    byte[] encode() {
        return (VERSION + "|" + deadline.toEpochMilli() + "|" + ttl.toMillis() + "|" + owner).getBytes(StandardCharsets.UTF_8);
    }

    /** The decoded data, or empty when the node was not written by this manager (then it is never taken over). */
    static Optional<LeaseNodeData> decode(byte[] bytes) {
        if (bytes == null) {
            return Optional.empty();
        }
        String[] parts = new String(bytes, StandardCharsets.UTF_8).split("\\|", 4);
        if (parts.length != 4 || !VERSION.equals(parts[0])) {
            return Optional.empty();
        }
        try {
            return Optional.of(new LeaseNodeData(parts[3], Instant.ofEpochMilli(Long.parseLong(parts[1])),
                    Duration.ofMillis(Long.parseLong(parts[2]))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    boolean deadlinePassed(Instant now) {
        return now.isAfter(deadline);
    }
}
