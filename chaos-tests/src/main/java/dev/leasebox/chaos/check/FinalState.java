package dev.leasebox.chaos.check;

import java.util.List;
import java.util.Map;

/**
 * What the outbox and the downstream inbox hold after a run: the checker's ground truth.
 *
 * @param rows  every outbox row
 * @param inbox the jdbc-inbox rows by idempotency key
 */
public record FinalState(List<Row> rows, Map<String, Received> inbox) {

    public FinalState {
        rows = List.copyOf(rows);
        inbox = Map.copyOf(inbox);
    }

    /** One outbox row; {@code claimToken} 0 when no claim stands; {@code partitionKey} null when it has none. */
    public record Row(long id, String idempotencyKey, String status, int attemptCount, long fenceHighWater,
                      long claimToken, String partitionKey) {

        /** A row without a partition key. */
        public Row(long id, String idempotencyKey, String status, int attemptCount, long fenceHighWater, long claimToken) {
            this(id, idempotencyKey, status, attemptCount, fenceHighWater, claimToken, null);
        }
    }

    /**
     * One inbox row: how often the key was delivered, the highest fence it came with, and {@code firstSeq},
     * the inbox sequence value its first delivery took (first deliveries are numbered in the order their
     * inserts ran; a repeat keeps the first number).
     */
    public record Received(String idempotencyKey, long entryId, int deliveries, long lastFence, long firstSeq) {

        /** A delivery whose place in the order of first deliveries is unknown (0). */
        public Received(String idempotencyKey, long entryId, int deliveries, long lastFence) {
            this(idempotencyKey, entryId, deliveries, lastFence, 0);
        }
    }
}
