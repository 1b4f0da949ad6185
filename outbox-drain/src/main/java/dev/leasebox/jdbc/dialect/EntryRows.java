package dev.leasebox.jdbc.dialect;

import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxEntry;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** Binding of values and mapping of outbox rows, shared by the dialects. */
public final class EntryRows {

    private EntryRows() {
    }

    /** Instants are stored with microsecond precision (both databases' timestamp precision). */
    public static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    public static void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(micros(instant), ZoneOffset.UTC));
        }
    }

    /** Binds {@code instant} as a zone-less date-time in UTC (MariaDB's DATETIME columns), or NULL. */
    static void setUtcDateTime(PreparedStatement ps, int index, Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(index, Types.TIMESTAMP);
        } else {
            ps.setObject(index, LocalDateTime.ofInstant(micros(instant), ZoneOffset.UTC));
        }
    }

    /** The ISO-8601 text of an instant, for array parameters cast to timestamptz in SQL. */
    public static String text(Instant instant) {
        return instant == null ? null : micros(instant).toString();
    }

    /** The three status values bound into a selection's {@code status IN (?, ?, ?)}. */
    static int bindSelection(PreparedStatement ps, int index, ClaimSelection selection) throws SQLException {
        String[] statuses = switch (selection) {
            case PENDING -> new String[] {"PENDING", "DEFERRED", "DEFERRED"};
            case RETRY_READY -> new String[] {"RETRYABLE_FAILURE", "RETRYABLE_FAILURE", "RETRYABLE_FAILURE"};
            case ELIGIBLE -> new String[] {"PENDING", "DEFERRED", "RETRYABLE_FAILURE"};
        };
        for (String status : statuses) {
            ps.setString(index++, status);
        }
        return index;
    }

    static List<OutboxEntry> readAll(ResultSet rs, boolean withClaims) throws SQLException {
        return readAll(rs, withClaims, false);
    }

    /** {@code utcDateTimes}: the instants are zone-less date-times in UTC (MariaDB's DATETIME columns). */
    static List<OutboxEntry> readAll(ResultSet rs, boolean withClaims, boolean utcDateTimes) throws SQLException {
        List<OutboxEntry> entries = new ArrayList<>();
        Reader reader = null;
        while (rs.next()) {
            if (reader == null) {
                reader = new Reader(rs, withClaims, utcDateTimes);
            }
            entries.add(reader.read());
        }
        return entries;
    }

    static OutboxEntry read(ResultSet rs, boolean withClaims) throws SQLException {
        return read(rs, withClaims, false);
    }

    static OutboxEntry read(ResultSet rs, boolean withClaims, boolean utc) throws SQLException {
        return new Reader(rs, withClaims, utc).read();
    }

    /**
     * Reads outbox rows from one result set, its columns looked up by name once: a drain reads hundreds of
     * rows a batch, and a lookup by name per value cost a tenth of a claim loop's time.
     */
    static final class Reader {
        private final ResultSet rs;
        private final boolean withClaims;
        private final boolean utc;
        private final int id, idempotencyKey, partitionKey, type, payload, headers, status, attemptCount,
                nextAttemptAt, createdAt, deliveredAt, lastError, deadLetterReason;
        private final int claimToken, claimOwner, claimedAt, claimExpiresAt, claimAttemptCount, fenceHighWater;

        Reader(ResultSet rs, boolean withClaims, boolean utc) throws SQLException {
            this.rs = rs;
            this.withClaims = withClaims;
            this.utc = utc;
            id = rs.findColumn("id");
            idempotencyKey = rs.findColumn("idempotency_key");
            partitionKey = rs.findColumn("partition_key");
            type = rs.findColumn("type");
            payload = rs.findColumn("payload");
            headers = rs.findColumn("headers");
            status = rs.findColumn("status");
            attemptCount = rs.findColumn("attempt_count");
            nextAttemptAt = rs.findColumn("next_attempt_at");
            createdAt = rs.findColumn("created_at");
            deliveredAt = rs.findColumn("delivered_at");
            lastError = rs.findColumn("last_error");
            deadLetterReason = rs.findColumn("dead_letter_reason");
            claimToken = withClaims ? rs.findColumn("claim_token") : 0;
            claimOwner = withClaims ? rs.findColumn("claim_owner") : 0;
            claimedAt = withClaims ? rs.findColumn("claimed_at") : 0;
            claimExpiresAt = withClaims ? rs.findColumn("claim_expires_at") : 0;
            claimAttemptCount = withClaims ? rs.findColumn("claim_attempt_count") : 0;
            fenceHighWater = withClaims ? rs.findColumn("fence_high_water") : 0;
        }

        /** The row at the result set's cursor. */
        OutboxEntry read() throws SQLException {
            OutboxEntry.Builder b = OutboxEntry.builder()
                    .id(rs.getLong(id))
                    .idempotencyKey(rs.getString(idempotencyKey))
                    .partitionKey(rs.getString(partitionKey))
                    .type(rs.getString(type))
                    .payload(rs.getBytes(payload))
                    .headers(HeadersJson.read(rs.getString(headers)))
                    .status(EmissionStatus.valueOf(rs.getString(status)))
                    .attemptCount(rs.getInt(attemptCount))
                    .nextAttemptAt(instant(rs, nextAttemptAt, utc))
                    .createdAt(instant(rs, createdAt, utc))
                    .deliveredAt(instant(rs, deliveredAt, utc))
                    .lastError(rs.getString(lastError))
                    .deadLetterReason(rs.getString(deadLetterReason));
            if (withClaims) {
                long token = rs.getLong(claimToken);
                b.claimToken(rs.wasNull() ? null : token)
                        .claimOwner(rs.getString(claimOwner))
                        .claimedAt(instant(rs, claimedAt, utc))
                        .claimExpiresAt(instant(rs, claimExpiresAt, utc))
                        .claimAttemptCount(rs.getInt(claimAttemptCount))
                        .fenceHighWater(rs.getLong(fenceHighWater));
            }
            return b.build();
        }
    }

    /** The instant in column {@code column}, or null. */
    static Instant instant(ResultSet rs, int column, boolean utc) throws SQLException {
        if (utc) {
            LocalDateTime local = rs.getObject(column, LocalDateTime.class);
            return local == null ? null : local.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** The claim a freshly claimed row carries. */
    public static OutboxClaim claimOf(OutboxEntry claimed) {
        return new OutboxClaim(claimed, claimed.claimOwner().orElseThrow(), claimed.claimToken().orElseThrow(),
                claimed.claimedAt().orElseThrow(), claimed.claimExpiresAt().orElseThrow(), claimed.claimAttemptCount());
    }
}
