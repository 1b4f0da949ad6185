package dev.leasebox.outbox;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One row of the outbox: the message, its emission state, and its claim metadata.
 *
 * <p>Immutable. Absent values are returned as {@link Optional}; build changed copies with
 * {@link #toBuilder()}. {@link #fenceHighWater()} is the highest claim token ever recorded for the
 * row: it only grows and is never cleared, which is what lets a store refuse a claim whose fence is
 * not newer than every claim before it.
 */
public final class OutboxEntry {

    private final long id;
    private final String idempotencyKey;
    private final String partitionKey;
    private final String type;
    private final byte[] payload;
    private final Map<String, String> headers;
    private final EmissionStatus status;
    private final int attemptCount;
    private final Instant nextAttemptAt;
    private final Instant createdAt;
    private final Instant deliveredAt;
    private final String lastError;
    private final String deadLetterReason;
    private final String claimOwner;
    private final Instant claimedAt;
    private final Instant claimExpiresAt;
    private final Long claimToken;
    private final int claimAttemptCount;
    private final long fenceHighWater;

    private OutboxEntry(Builder b) {
        this.id = b.id;
        this.idempotencyKey = Objects.requireNonNull(b.idempotencyKey, "idempotencyKey");
        this.partitionKey = b.partitionKey;
        this.type = Objects.requireNonNull(b.type, "type");
        this.payload = Objects.requireNonNull(b.payload, "payload").clone();
        this.headers = Map.copyOf(Objects.requireNonNull(b.headers, "headers"));
        this.status = Objects.requireNonNull(b.status, "status");
        this.attemptCount = b.attemptCount;
        this.nextAttemptAt = b.nextAttemptAt;
        this.createdAt = Objects.requireNonNull(b.createdAt, "createdAt");
        this.deliveredAt = b.deliveredAt;
        this.lastError = b.lastError;
        this.deadLetterReason = b.deadLetterReason;
        this.claimOwner = b.claimOwner;
        this.claimedAt = b.claimedAt;
        this.claimExpiresAt = b.claimExpiresAt;
        this.claimToken = b.claimToken;
        this.claimAttemptCount = b.claimAttemptCount;
        this.fenceHighWater = b.fenceHighWater;
        if (attemptCount < 0 || claimAttemptCount < 0 || fenceHighWater < 0) {
            throw new IllegalArgumentException("counters must not be negative in entry " + id);
        }
        if (claimToken != null && claimToken > fenceHighWater) {
            throw new IllegalArgumentException("entry " + id + ": claim token " + claimToken
                    + " above fence high-water " + fenceHighWater);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.id = id;
        b.idempotencyKey = idempotencyKey;
        b.partitionKey = partitionKey;
        b.type = type;
        b.payload = payload;
        b.headers = headers;
        b.status = status;
        b.attemptCount = attemptCount;
        b.nextAttemptAt = nextAttemptAt;
        b.createdAt = createdAt;
        b.deliveredAt = deliveredAt;
        b.lastError = lastError;
        b.deadLetterReason = deadLetterReason;
        b.claimOwner = claimOwner;
        b.claimedAt = claimedAt;
        b.claimExpiresAt = claimExpiresAt;
        b.claimToken = claimToken;
        b.claimAttemptCount = claimAttemptCount;
        b.fenceHighWater = fenceHighWater;
        return b;
    }

    public long id() {
        return id;
    }

    /** Stable across every emission of this entry; providers collapse duplicates with it. */
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

    public byte[] payload() {
        return payload.clone();
    }

    public Map<String, String> headers() {
        return headers;
    }

    public EmissionStatus status() {
        return status;
    }

    /** Emissions attempted so far (delivered, failed and dead-lettered outcomes count; deferrals do not). */
    public int attemptCount() {
        return attemptCount;
    }

    /** When a DEFERRED or RETRYABLE_FAILURE entry (or a PENDING one scheduled ahead) becomes due. */
    public Optional<Instant> nextAttemptAt() {
        return Optional.ofNullable(nextAttemptAt);
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Optional<Instant> deliveredAt() {
        return Optional.ofNullable(deliveredAt);
    }

    public Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    public Optional<String> deadLetterReason() {
        return Optional.ofNullable(deadLetterReason);
    }

    public Optional<String> claimOwner() {
        return Optional.ofNullable(claimOwner);
    }

    public Optional<Instant> claimedAt() {
        return Optional.ofNullable(claimedAt);
    }

    public Optional<Instant> claimExpiresAt() {
        return Optional.ofNullable(claimExpiresAt);
    }

    public OptionalLong claimToken() {
        return claimToken == null ? OptionalLong.empty() : OptionalLong.of(claimToken);
    }

    /** How many times the row has been claimed (an operational counter; reclaims add one). */
    public int claimAttemptCount() {
        return claimAttemptCount;
    }

    /** The highest claim token ever recorded for this row; never decreases, never cleared. */
    public long fenceHighWater() {
        return fenceHighWater;
    }

    /** Whether a claim token is set and, at {@code now}, not yet expired. */
    public boolean isClaimedAt(Instant now) {
        return claimToken != null && claimExpiresAt != null && now.isBefore(claimExpiresAt);
    }

    /** Due: no next attempt time, or one not after {@code now}. */
    public boolean isDueAt(Instant now) {
        return nextAttemptAt == null || !nextAttemptAt.isAfter(now);
    }

    /** Selected by {@code selection}, due, and not under an unexpired claim. */
    public boolean isEligibleAt(ClaimSelection selection, Instant now) {
        return selection.selects(status) && isDueAt(now) && !isClaimedAt(now);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof OutboxEntry e)) {
            return false;
        }
        return id == e.id && attemptCount == e.attemptCount && claimAttemptCount == e.claimAttemptCount
                && fenceHighWater == e.fenceHighWater && idempotencyKey.equals(e.idempotencyKey)
                && Objects.equals(partitionKey, e.partitionKey) && type.equals(e.type)
                && Arrays.equals(payload, e.payload) && headers.equals(e.headers) && status == e.status
                && Objects.equals(nextAttemptAt, e.nextAttemptAt) && createdAt.equals(e.createdAt)
                && Objects.equals(deliveredAt, e.deliveredAt) && Objects.equals(lastError, e.lastError)
                && Objects.equals(deadLetterReason, e.deadLetterReason) && Objects.equals(claimOwner, e.claimOwner)
                && Objects.equals(claimedAt, e.claimedAt) && Objects.equals(claimExpiresAt, e.claimExpiresAt)
                && Objects.equals(claimToken, e.claimToken);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, idempotencyKey, status, claimToken, fenceHighWater);
    }

    @Override
    public String toString() {
        return "OutboxEntry{id=" + id + ", key=" + idempotencyKey + ", status=" + status
                + ", attempts=" + attemptCount + ", claimToken=" + claimToken + ", claimOwner=" + claimOwner
                + ", claimExpiresAt=" + claimExpiresAt + ", fenceHighWater=" + fenceHighWater + "}";
    }

    /** Builds entries; stores use it to materialize rows, tests to make fixtures. */
    public static final class Builder {
        private long id;
        private String idempotencyKey;
        private String partitionKey;
        private String type;
        private byte[] payload = new byte[0];
        private Map<String, String> headers = Map.of();
        private EmissionStatus status = EmissionStatus.PENDING;
        private int attemptCount;
        private Instant nextAttemptAt;
        private Instant createdAt;
        private Instant deliveredAt;
        private String lastError;
        private String deadLetterReason;
        private String claimOwner;
        private Instant claimedAt;
        private Instant claimExpiresAt;
        private Long claimToken;
        private int claimAttemptCount;
        private long fenceHighWater;

        private Builder() {
        }

        public Builder id(long id) {
            this.id = id;
            return this;
        }

        public Builder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public Builder partitionKey(String partitionKey) {
            this.partitionKey = partitionKey;
            return this;
        }

        public Builder type(String type) {
            this.type = type;
            return this;
        }

        public Builder payload(byte[] payload) {
            this.payload = payload;
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            this.headers = headers;
            return this;
        }

        public Builder status(EmissionStatus status) {
            this.status = status;
            return this;
        }

        public Builder attemptCount(int attemptCount) {
            this.attemptCount = attemptCount;
            return this;
        }

        public Builder nextAttemptAt(Instant nextAttemptAt) {
            this.nextAttemptAt = nextAttemptAt;
            return this;
        }

        public Builder createdAt(Instant createdAt) {
            this.createdAt = createdAt;
            return this;
        }

        public Builder deliveredAt(Instant deliveredAt) {
            this.deliveredAt = deliveredAt;
            return this;
        }

        public Builder lastError(String lastError) {
            this.lastError = lastError;
            return this;
        }

        public Builder deadLetterReason(String deadLetterReason) {
            this.deadLetterReason = deadLetterReason;
            return this;
        }

        public Builder claimOwner(String claimOwner) {
            this.claimOwner = claimOwner;
            return this;
        }

        public Builder claimedAt(Instant claimedAt) {
            this.claimedAt = claimedAt;
            return this;
        }

        public Builder claimExpiresAt(Instant claimExpiresAt) {
            this.claimExpiresAt = claimExpiresAt;
            return this;
        }

        public Builder claimToken(Long claimToken) {
            this.claimToken = claimToken;
            return this;
        }

        public Builder claimAttemptCount(int claimAttemptCount) {
            this.claimAttemptCount = claimAttemptCount;
            return this;
        }

        public Builder fenceHighWater(long fenceHighWater) {
            this.fenceHighWater = fenceHighWater;
            return this;
        }

        /** Sets the claim fields of {@code claim} and raises the high-water mark to its token. */
        public Builder claim(String owner, long token, Instant at, Instant expiresAt, int attempt) {
            this.claimOwner = owner;
            this.claimToken = token;
            this.claimedAt = at;
            this.claimExpiresAt = expiresAt;
            this.claimAttemptCount = attempt;
            this.fenceHighWater = Math.max(this.fenceHighWater, token);
            return this;
        }

        /** Clears the claim fields; the high-water mark stays. */
        public Builder clearClaim() {
            this.claimOwner = null;
            this.claimToken = null;
            this.claimedAt = null;
            this.claimExpiresAt = null;
            return this;
        }

        public OutboxEntry build() {
            return new OutboxEntry(this);
        }
    }
}
