package dev.leasebox.provider;

import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One outbox entry as handed to an {@link OutboxProvider}: the message, and who is emitting it
 * under which claim.
 *
 * <p>Immutable; no accessor returns null. {@link #idempotencyKey()} is the same for every emission
 * of the entry, so a provider can let its receiver collapse duplicates. {@link #fence()} is the
 * claim token the emission happens under: it is present on the claim path and strictly greater for
 * every later claim of the same entry, so a receiver that remembers the highest fence per key can
 * refuse an emission from a worker that was superseded. It is absent on the non-claiming path.
 */
public final class Envelope {

    private final long entryId;
    private final String idempotencyKey;
    private final String partitionKey;
    private final String type;
    private final byte[] payload;
    private final Map<String, String> headers;
    private final Long fence;
    private final int attempt;
    private final String owner;

    private Envelope(OutboxEntry entry, Long fence, String owner) {
        this.entryId = entry.id();
        this.idempotencyKey = entry.idempotencyKey();
        this.partitionKey = entry.partitionKey().orElse(null);
        this.type = entry.type();
        this.payload = entry.payload();
        this.headers = entry.headers();
        this.fence = fence;
        this.attempt = entry.attemptCount() + 1;
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    /** The envelope for an emission under {@code claim}: its token is the fence, its owner the emitter. */
    public static Envelope forClaim(OutboxClaim claim) {
        return new Envelope(claim.entry(), claim.token(), claim.owner());
    }

    /** The envelope for an emission on the non-claiming path: no fence. */
    public static Envelope forUnclaimed(OutboxEntry entry, String owner) {
        return new Envelope(entry, null, owner);
    }

    public long entryId() {
        return entryId;
    }

    /** Stable across every emission of this entry. */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** The aggregate or ordering key, when the writer gave one. */
    public Optional<String> partitionKey() {
        return Optional.ofNullable(partitionKey);
    }

    public String type() {
        return type;
    }

    /** A copy of the payload bytes. */
    public byte[] payload() {
        return payload.clone();
    }

    /** The payload as UTF-8 text: what {@code OutboxMessage.of(type, String)} wrote (JSON, for example). */
    public String payloadText() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    public Map<String, String> headers() {
        return headers;
    }

    /** The claim token this emission happens under; absent on the non-claiming path. */
    public OptionalLong fence() {
        return fence == null ? OptionalLong.empty() : OptionalLong.of(fence);
    }

    /** Which emission attempt this is, counting from 1 (deferrals do not count as attempts). */
    public int attempt() {
        return attempt;
    }

    /** The drain owner (worker id) emitting it. */
    public String owner() {
        return owner;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Envelope e)) {
            return false;
        }
        return entryId == e.entryId && attempt == e.attempt && idempotencyKey.equals(e.idempotencyKey)
                && Objects.equals(partitionKey, e.partitionKey) && type.equals(e.type)
                && Arrays.equals(payload, e.payload) && headers.equals(e.headers)
                && Objects.equals(fence, e.fence) && owner.equals(e.owner);
    }

    @Override
    public int hashCode() {
        return Objects.hash(entryId, idempotencyKey, fence, attempt, owner);
    }

    @Override
    public String toString() {
        return "Envelope{entry=" + entryId + ", key=" + idempotencyKey + ", type=" + type + ", fence="
                + (fence == null ? "none" : fence) + ", attempt=" + attempt + ", owner=" + owner + "}";
    }
}
