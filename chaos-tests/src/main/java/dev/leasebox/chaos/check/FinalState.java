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

    /** One outbox row; {@code claimToken} 0 when no claim stands. */
    public record Row(long id, String idempotencyKey, String status, int attemptCount, long fenceHighWater,
                      long claimToken) {
    }

    /** One inbox row: how often the key was delivered, and the highest fence it came with. */
    public record Received(String idempotencyKey, long entryId, int deliveries, long lastFence) {
    }
}
