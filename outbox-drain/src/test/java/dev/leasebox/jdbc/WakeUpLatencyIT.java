package dev.leasebox.jdbc;

import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testing.LeaseboxToolBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Commit → emission on an idle outbox, wake-ups on and off, with the default idle polling (100 ms doubling to
 * 5 s): one row per transaction, a random 0.2–1.2 s apart, the time from the writer's commit returning to the
 * provider's call. A measurement, run only when asked ({@code -Dleasebox.wakeUpLatency=true}); the pauses
 * between rows pace the writer, they synchronise nothing. Figures and command: docs/performance.md.
 */
@EnabledIfSystemProperty(named = "leasebox.wakeUpLatency", matches = "true")
class WakeUpLatencyIT {

    private static final int ROWS = Integer.getInteger("leasebox.wakeUpLatency.rows", 60);

    @RegisterExtension
    static final PostgreSqlSchema PG = new PostgreSqlSchema(8);

    @RegisterExtension
    static final MariaDbDatabase MARIADB = new MariaDbDatabase(8);

    @Test
    void postgreSqlRowsInsertedByPlainSql() {
        List<String> lines = new ArrayList<>();
        for (boolean wakeUps : new boolean[]{false, true}) {
            TableName table = TestTables.fresh(PG.ds(), DatabaseKind.POSTGRESQL, PG.name());
            lines.add(measure(PG.ds(), table, wakeUps, "PostgreSQL, plain SQL", key -> plainInsert(table, key)));
        }
        lines.forEach(System.out::println);
    }

    @Test
    void mariaDbRowsWrittenByOutboxWriterInTheDrainsProcess() {
        List<String> lines = new ArrayList<>();
        for (boolean wakeUps : new boolean[]{false, true}) {
            TableName table = TestTables.fresh(MARIADB.ds(), DatabaseKind.MARIADB, MARIADB.name());
            OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
            lines.add(measure(MARIADB.ds(), table, wakeUps, "MariaDB, OutboxWriter.enqueue(DataSource, …)",
                    key -> writer.enqueue(MARIADB.ds(), OutboxMessage.of("t", key.getBytes(StandardCharsets.UTF_8))).id()));
        }
        lines.forEach(System.out::println);
    }

    private static String measure(DataSource ds, TableName table, boolean wakeUps, String what, ToLongFunction<String> write) {
        Map<Long, Long> emittedAt = new ConcurrentHashMap<>();
        Map<Long, Long> committedAt = new ConcurrentHashMap<>();
        try (Leasebox drain = LeaseboxToolBuilder.drain(ds).withoutClaimStyleRegistry().table(table).wakeUps(wakeUps)
                .options(DrainOptions.builder().owner("latency").build())
                .provider(envelope -> {
                    emittedAt.putIfAbsent(envelope.entryId(), System.nanoTime());
                    return ProviderOutcome.delivered();
                }).build()) {
            drain.start();
            LockSupport.parkNanos(Duration.ofSeconds(6).toNanos()); // let the idle backoff reach its cap
            for (int i = 0; i < ROWS; i++) {
                long id = write.applyAsLong("latency-" + wakeUps + "-" + i);
                committedAt.put(id, System.nanoTime());
                LockSupport.parkNanos(Duration.ofMillis(200 + ThreadLocalRandom.current().nextInt(1000)).toNanos());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> emittedAt.keySet().containsAll(committedAt.keySet()));
        }
        List<Long> micros = new ArrayList<>();
        committedAt.forEach((id, committed) -> micros.add(Math.max(0, emittedAt.get(id) - committed) / 1_000));
        micros.sort(null);
        assertThat(micros).hasSize(ROWS);
        return String.format(Locale.ROOT, "%s, wake-ups %s: commit -> emission p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, "
                        + "max %.1f ms (%d rows)", what, wakeUps ? "on" : "off", pct(micros, 0.50), pct(micros, 0.95),
                pct(micros, 0.99), micros.get(micros.size() - 1) / 1000.0, micros.size());
    }

    private static double pct(List<Long> sorted, double p) {
        return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(sorted.size() * p) - 1)) / 1000.0;
    }

    private static long plainInsert(TableName table, String key) {
        try (Connection c = PG.ds().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("INSERT INTO " + table + " (idempotency_key, type, payload, created_at) VALUES ('"
                     + key + "', 't', '\\x7b7d'::bytea, now()) RETURNING id")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
