package dev.leasebox.jdbc;

import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.EmissionStatus;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redrive and purge on a real database, run against each by a subclass; a fresh table (V1..V4) per test. */
abstract class OutboxMaintenanceScenarios {

    private static final AtomicInteger TABLES = new AtomicInteger();

    protected abstract DataSource dataSource();

    protected abstract String schema();

    protected abstract DatabaseKind kind();

    private TableName table;
    private JdbcOutboxStore store;
    private OutboxMaintenance maintenance;

    @BeforeEach
    void newTable() {
        table = new TableName(schema(), "maint_" + TABLES.incrementAndGet());
        new LeaseboxSchema(kind(), table).applyAll(dataSource());
        store = JdbcOutboxStore.builder(dataSource()).table(table).open();
        maintenance = OutboxMaintenance.on(dataSource(), table);
    }

    private long row(String type, String key, EmissionStatus status, Duration age) {
        OutboxMessage m = OutboxMessage.of(type, type.getBytes(StandardCharsets.UTF_8));
        OutboxEntry e = store.enqueue(key == null ? m : m.withPartitionKey(key));
        Instant created = Instant.now().minus(age);
        update("UPDATE " + table + " SET status = ?, attempt_count = 7, claim_attempt_count = 7, created_at = ?, "
                        + "delivered_at = ?, last_error = 'boom', dead_letter_reason = ?, fence_high_water = 40 WHERE id = ?",
                status.name(), at(created), status == EmissionStatus.DELIVERED ? at(created) : null,
                status == EmissionStatus.DEAD_LETTERED ? "gave up" : null, e.id());
        return e.id();
    }

    private void liveClaim(long id, Duration fromNow) {
        update("UPDATE " + table + " SET claim_owner = 'w1', claim_token = 40, claimed_at = ?, claim_expires_at = ? WHERE id = ?",
                at(Instant.now()), at(Instant.now().plus(fromNow)), id);
    }

    private void fence(long id, long fence) {
        update("UPDATE " + table + " SET fence_high_water = ? WHERE id = ?", fence, id);
    }

    private static OffsetDateTime at(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    private void update(String sql, Object... params) {
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] == null) {
                    ps.setNull(i + 1, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private OutboxEntry entry(long id) {
        return store.find(id).orElseThrow();
    }

    @Test
    void aDryRunCountsAndChangesNothing() {
        long dead = row("order", null, EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        long held = row("order", null, EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        liveClaim(held, Duration.ofMinutes(10));
        row("order", null, EmissionStatus.FAILED, Duration.ofHours(2));
        row("order", null, EmissionStatus.DELIVERED, Duration.ofHours(2));

        assertThat(maintenance.planRedrive(OutboxMaintenance.Redrive.deadLetters()))
                .isEqualTo(new OutboxMaintenance.Plan(1, 1));
        assertThat(maintenance.planRedrive(OutboxMaintenance.Redrive.deadLetters().includingFailed()))
                .isEqualTo(new OutboxMaintenance.Plan(2, 1));
        assertThat(entry(dead).status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
    }

    @Test
    void redriveResetsAttemptsAndErrorsKeepsTheFenceAndSkipsLiveClaims() {
        long dead = row("order", "k1", EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        fence(dead, 99);
        long held = row("order", "k1", EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        liveClaim(held, Duration.ofMinutes(10));
        long lapsed = row("order", "k1", EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        liveClaim(lapsed, Duration.ofMinutes(-10));
        long failed = row("order", "k1", EmissionStatus.FAILED, Duration.ofHours(2));
        long delivered = row("order", "k1", EmissionStatus.DELIVERED, Duration.ofHours(2));

        assertThat(maintenance.redrive(OutboxMaintenance.Redrive.deadLetters())).isEqualTo(2);

        OutboxEntry redriven = entry(dead);
        assertThat(redriven.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(redriven.attemptCount()).isZero();
        assertThat(redriven.claimAttemptCount()).isZero();
        assertThat(redriven.lastError()).isEmpty();
        assertThat(redriven.deadLetterReason()).isEmpty();
        assertThat(redriven.nextAttemptAt()).isEmpty();
        assertThat(redriven.fenceHighWater()).isEqualTo(99);
        OutboxEntry wasLapsed = entry(lapsed);
        assertThat(wasLapsed.status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(wasLapsed.claimToken()).isEmpty();
        assertThat(entry(held).status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(entry(held).claimToken().getAsLong()).isEqualTo(40L);
        assertThat(entry(failed).status()).isEqualTo(EmissionStatus.FAILED);
        assertThat(entry(delivered).status()).isEqualTo(EmissionStatus.DELIVERED);
        assertThat(store.highestFenceHighWater()).isEqualTo(99);
    }

    @Test
    void redriveSelectsByIdsTypePartitionKeyAndAge() {
        long a = row("order", "k1", EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        long b = row("invoice", "k1", EmissionStatus.DEAD_LETTERED, Duration.ofHours(2));
        long c = row("order", "k2", EmissionStatus.DEAD_LETTERED, Duration.ofMinutes(5));
        long d = row("order", "k2", EmissionStatus.FAILED, Duration.ofHours(3));
        long e = row("order", "k3", EmissionStatus.DEAD_LETTERED, Duration.ofHours(3));

        var all = OutboxMaintenance.Redrive.deadLetters();
        assertThat(maintenance.planRedrive(all.type("invoice")).matching()).isEqualTo(1);
        assertThat(maintenance.planRedrive(all.partitionKey("k2")).matching()).isEqualTo(1);
        assertThat(maintenance.planRedrive(all.partitionKey("k2").includingFailed()).matching()).isEqualTo(2);
        assertThat(maintenance.planRedrive(all.olderThan(Duration.ofHours(1))).matching()).isEqualTo(3);
        assertThat(maintenance.planRedrive(all.ids(List.of(a, c, d))).matching()).isEqualTo(2);
        assertThat(maintenance.planRedrive(all.ids(List.of(a, c)).olderThan(Duration.ofHours(1)).type("order"))
                .matching()).isEqualTo(1);

        assertThat(maintenance.redrive(all.ids(List.of(b, e)))).isEqualTo(2);
        assertThat(entry(a).status()).isEqualTo(EmissionStatus.DEAD_LETTERED);
        assertThat(entry(b).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(entry(e).status()).isEqualTo(EmissionStatus.PENDING);
        assertThat(maintenance.redrive(all.partitionKey("k2").includingFailed())).isEqualTo(2);
        assertThat(entry(d).status()).isEqualTo(EmissionStatus.PENDING);
    }

    @Test
    void redriveWorksInBatchesAndReportsProgress() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            ids.add(row("order", null, EmissionStatus.DEAD_LETTERED, Duration.ofHours(1)));
        }
        List<Long> progress = new ArrayList<>();
        assertThat(maintenance.redrive(OutboxMaintenance.Redrive.deadLetters(), 5, progress::add)).isEqualTo(23);
        assertThat(progress).containsExactly(5L, 10L, 15L, 20L, 23L);
        assertThat(ids).allSatisfy(id -> assertThat(entry(id).status()).isEqualTo(EmissionStatus.PENDING));
    }

    @Test
    void purgeDeletesOldTerminalRowsInBatchesAndKeepsTheHighestFence() {
        List<Long> old = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            old.add(row("order", null, EmissionStatus.DELIVERED, Duration.ofDays(8)));
        }
        long highest = old.get(3);
        fence(highest, 500);
        long recent = row("order", null, EmissionStatus.DELIVERED, Duration.ofDays(1));
        long deadOld = row("order", null, EmissionStatus.DEAD_LETTERED, Duration.ofDays(8));
        long pendingOld = row("order", null, EmissionStatus.PENDING, Duration.ofDays(8));
        update("UPDATE " + table + " SET attempt_count = 0 WHERE id = ?", pendingOld);

        var purge = OutboxMaintenance.Purge.delivered(Duration.ofDays(7));
        assertThat(maintenance.planPurge(purge)).isEqualTo(new OutboxMaintenance.Plan(11, 0));
        assertThat(maintenance.keptAtHighestFence(purge)).as("the row with the highest fence, said so").isEqualTo(1);
        assertThat(store.find(highest)).isPresent();

        List<Long> progress = new ArrayList<>();
        assertThat(maintenance.purge(purge, 4, progress::add)).isEqualTo(11);
        assertThat(progress).containsExactly(4L, 8L, 11L);
        assertThat(old).filteredOn(id -> id != highest).allSatisfy(id -> assertThat(store.find(id)).isEmpty());
        assertThat(store.find(highest)).isPresent();
        assertThat(store.highestFenceHighWater()).isEqualTo(500);
        assertThat(store.find(recent)).isPresent();
        assertThat(store.find(deadOld)).isPresent();
        assertThat(store.find(pendingOld)).isPresent();

        var both = new OutboxMaintenance.Purge(Set.of(EmissionStatus.DELIVERED, EmissionStatus.DEAD_LETTERED), Duration.ofDays(7));
        assertThat(maintenance.purge(both)).isEqualTo(1);
        assertThat(store.find(deadOld)).isEmpty();
        assertThat(maintenance.planPurge(both).matching()).isZero();
    }

    @Test
    void purgeRefusesNonTerminalStatusesAndBadBatches() {
        assertThatThrownBy(() -> new OutboxMaintenance.Purge(Set.of(EmissionStatus.PENDING), Duration.ofDays(1)))
                .hasMessage("purge deletes DELIVERED, DEAD_LETTERED or FAILED rows, not PENDING");
        assertThatThrownBy(() -> maintenance.purge(OutboxMaintenance.Purge.delivered(Duration.ofDays(1)), 0, n -> {
        })).hasMessage("the batch size must be in 1..10000, was 0");
    }

    @Test
    void theIdleCheckAgreesWithTheBacklogCount() throws SQLException {
        OutboxTableStatus status = new OutboxTableStatus(dataSource(), table);
        Instant now = Instant.now();
        row("done", null, EmissionStatus.DELIVERED, Duration.ofHours(1));
        long later = row("later", null, EmissionStatus.RETRYABLE_FAILURE, Duration.ofMinutes(1));
        update("UPDATE " + table + " SET next_attempt_at = ? WHERE id = ?", at(now.plus(Duration.ofHours(1))), later);
        assertThat(status.outstanding(now)).isZero();
        assertThat(status.anyOutstanding(now)).as("a delivered row and a retry not yet due").isFalse();

        liveClaim(later, Duration.ofMinutes(5));
        assertThat(status.outstanding(now)).isEqualTo(1);
        assertThat(status.anyOutstanding(now)).as("a row under a live claim").isTrue();

        update("UPDATE " + table + " SET claim_expires_at = ? WHERE id = ?", at(now.minus(Duration.ofMinutes(1))), later);
        assertThat(status.anyOutstanding(now)).as("its claim lapsed, its retry still not due").isFalse();
        assertThat(status.anyOutstanding(now.plus(Duration.ofHours(2)))).as("once the retry is due").isTrue();

        row("new", null, EmissionStatus.PENDING, Duration.ZERO);
        assertThat(status.outstanding(now)).isEqualTo(1);
        assertThat(status.anyOutstanding(now)).as("a pending row").isTrue();
    }
}
