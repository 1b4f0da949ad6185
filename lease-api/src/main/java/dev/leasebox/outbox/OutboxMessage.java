package dev.leasebox.outbox;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A message to enqueue: what a writer hands the outbox inside its own transaction.
 *
 * <p>The idempotency key defaults to a random UUID; give your own when the same business event
 * may be written twice (a unique key makes the second enqueue fail instead of duplicating).
 */
public final class OutboxMessage {

    private final String type;
    private final byte[] payload;
    private final Map<String, String> headers;
    private final String idempotencyKey;
    private final String partitionKey;

    private OutboxMessage(String type, byte[] payload, Map<String, String> headers, String idempotencyKey,
                          String partitionKey) {
        this.type = requireText(type, "type");
        this.payload = Objects.requireNonNull(payload, "payload").clone();
        this.headers = Map.copyOf(headers);
        this.idempotencyKey = requireText(idempotencyKey, "idempotencyKey");
        this.partitionKey = partitionKey == null ? null : requireText(partitionKey, "partitionKey");
    }

    private static String requireText(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return value;
    }

    /** A message of {@code type} carrying {@code payload}, with a fresh UUID idempotency key. */
    public static OutboxMessage of(String type, byte[] payload) {
        return new OutboxMessage(type, payload, Map.of(), UUID.randomUUID().toString(), null);
    }

    /**
     * A message of {@code type} carrying {@code payload} as UTF-8 text (JSON, for example), with a fresh
     * UUID idempotency key; the provider reads it back with {@code Envelope.payloadText()}.
     */
    public static OutboxMessage of(String type, String payload) {
        return of(type, Objects.requireNonNull(payload, "payload").getBytes(StandardCharsets.UTF_8));
    }

    public OutboxMessage withIdempotencyKey(String key) {
        return new OutboxMessage(type, payload, headers, key, partitionKey);
    }

    public OutboxMessage withPartitionKey(String key) {
        return new OutboxMessage(type, payload, headers, idempotencyKey, key);
    }

    public OutboxMessage withHeader(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.put(requireText(name, "header name"), Objects.requireNonNull(value, "header value"));
        return new OutboxMessage(type, payload, copy, idempotencyKey, partitionKey);
    }

    public String type() {
        return type;
    }

    public byte[] payload() {
        return payload.clone();
    }

    public Map<String, String> headers() {
        return headers;
    }

    public String idempotencyKey() {
        return idempotencyKey;
    }

    public Optional<String> partitionKey() {
        return Optional.ofNullable(partitionKey);
    }
}
