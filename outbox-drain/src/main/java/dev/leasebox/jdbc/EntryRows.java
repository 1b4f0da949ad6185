package dev.leasebox.jdbc;

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
final class EntryRows {

    private EntryRows() {
    }

    /** Instants are stored with microsecond precision (both databases' timestamp precision). */
    static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    static void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
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
    static String text(Instant instant) {
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
        while (rs.next()) {
            entries.add(read(rs, withClaims, utcDateTimes));
        }
        return entries;
    }

    static OutboxEntry read(ResultSet rs, boolean withClaims) throws SQLException {
        return read(rs, withClaims, false);
    }

    static OutboxEntry read(ResultSet rs, boolean withClaims, boolean utc) throws SQLException {
        OutboxEntry.Builder b = OutboxEntry.builder()
                .id(rs.getLong("id"))
                .idempotencyKey(rs.getString("idempotency_key"))
                .partitionKey(rs.getString("partition_key"))
                .type(rs.getString("type"))
                .payload(rs.getBytes("payload"))
                .headers(HeadersJson.read(rs.getString("headers")))
                .status(EmissionStatus.valueOf(rs.getString("status")))
                .attemptCount(rs.getInt("attempt_count"))
                .nextAttemptAt(instant(rs, "next_attempt_at", utc))
                .createdAt(instant(rs, "created_at", utc))
                .deliveredAt(instant(rs, "delivered_at", utc))
                .lastError(rs.getString("last_error"))
                .deadLetterReason(rs.getString("dead_letter_reason"));
        if (withClaims) {
            long token = rs.getLong("claim_token");
            b.claimToken(rs.wasNull() ? null : token)
                    .claimOwner(rs.getString("claim_owner"))
                    .claimedAt(instant(rs, "claimed_at", utc))
                    .claimExpiresAt(instant(rs, "claim_expires_at", utc))
                    .claimAttemptCount(rs.getInt("claim_attempt_count"))
                    .fenceHighWater(rs.getLong("fence_high_water"));
        }
        return b.build();
    }

    private static Instant instant(ResultSet rs, String column, boolean utc) throws SQLException {
        if (utc) {
            LocalDateTime local = rs.getObject(column, LocalDateTime.class);
            return local == null ? null : local.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** The claim a freshly claimed row carries. */
    static OutboxClaim claimOf(OutboxEntry claimed) {
        return new OutboxClaim(claimed, claimed.claimOwner().orElseThrow(), claimed.claimToken().orElseThrow(),
                claimed.claimedAt().orElseThrow(), claimed.claimExpiresAt().orElseThrow(), claimed.claimAttemptCount());
    }
}
