package dev.leasebox.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;
import dev.leasebox.outbox.OutboxMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What V7's trigger costs writers: {@link OutboxWriter#enqueue(javax.sql.DataSource, OutboxMessage)} (one row
 * per transaction) for a fixed time with the trigger enabled and disabled, alternating in one run, with one
 * session listening as a drain would. A measurement, run only when asked:
 * {@code -Dleasebox.writerCost=true} (docs/performance.md gives the command and the figures). With
 * {@code -Dleasebox.writerCost.trigger=statement} it measures instead a statement-level trigger through which
 * every inserting transaction notifies, the design V7 does not ship, for comparison. It asserts only that
 * every phase wrote rows.
 */
@EnabledIfSystemProperty(named = "leasebox.writerCost", matches = "true")
class PostgreSqlWakeUpTriggerCostIT {

    private static final Duration PHASE = Duration.ofSeconds(Long.getLong("leasebox.writerCost.seconds", 10));
    private static final int ROUNDS = Integer.getInteger("leasebox.writerCost.rounds", 3);
    private static final boolean EVERY_TRANSACTION_NOTIFIES = "statement".equals(System.getProperty("leasebox.writerCost.trigger"));
    private static final int[] WRITERS = Arrays.stream(System.getProperty("leasebox.writerCost.writers", "1,8").split(","))
            .mapToInt(Integer::parseInt).toArray();

    @RegisterExtension
    static final PostgreSqlSchema DB = new PostgreSqlSchema(20);

    @Test
    void enqueueThroughputWithAndWithoutTheTrigger() throws Exception {
        TableName table = TestTables.fresh(DB.ds(), DatabaseKind.POSTGRESQL, DB.name());
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        String trigger = table.table() + PostgreSqlCommitListener.TRIGGER_SUFFIX;
        if (EVERY_TRANSACTION_NOTIFIES) {
            PostgreSqlTestServer.execute(DB.ds(), "DROP TRIGGER " + trigger + " ON " + table);
            PostgreSqlTestServer.execute(DB.ds(), "CREATE FUNCTION " + table + "_notify_always() RETURNS trigger "
                    + "LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('" + PostgreSqlCommitListener.channel(DB.name(), table.table())
                    + "', ''); RETURN NULL; END $$");
            PostgreSqlTestServer.execute(DB.ds(), "CREATE TRIGGER " + trigger + " AFTER INSERT ON " + table
                    + " FOR EACH STATEMENT EXECUTE FUNCTION " + table + "_notify_always()");
        }
        List<String> lines = new ArrayList<>();
        try (Connection listening = DB.ds().getConnection(); Statement listen = listening.createStatement()) {
            listen.execute("LISTEN " + PostgreSqlCommitListener.quoted(PostgreSqlCommitListener.channel(DB.name(), table.table())));
            for (int writers : WRITERS) {
                double[] on = new double[ROUNDS];
                double[] off = new double[ROUNDS];
                Phase lastOn = null;
                Phase lastOff = null;
                for (int round = 0; round < ROUNDS; round++) {
                    PostgreSqlTestServer.execute(DB.ds(), "ALTER TABLE " + table + " DISABLE TRIGGER " + trigger);
                    lastOff = run(writer, writers);
                    off[round] = lastOff.perSecond();
                    PostgreSqlTestServer.execute(DB.ds(), "ALTER TABLE " + table + " ENABLE TRIGGER " + trigger);
                    lastOn = run(writer, writers);
                    on[round] = lastOn.perSecond();
                    assertThat(lastOn.rows()).isPositive();
                    assertThat(lastOff.rows()).isPositive();
                }
                lines.add(String.format(Locale.ROOT, "writers=%d  trigger off: %s tx/s (median %.0f, p99 %.2f ms)  "
                                + "trigger on: %s tx/s (median %.0f, p99 %.2f ms)  on/off %.2f",
                        writers, Arrays.toString(rounded(off)), median(off), lastOff.p99Millis(), Arrays.toString(rounded(on)),
                        median(on), lastOn.p99Millis(), median(on) / median(off)));
            }
        }
        System.out.println("Writer cost of " + (EVERY_TRANSACTION_NOTIFIES ? "a statement-level trigger notifying every "
                + "transaction" : "the V7 trigger") + " (" + PHASE.toSeconds() + " s phases, " + ROUNDS
                + " rounds, one transaction per entry, one listening session):");
        lines.forEach(line -> System.out.println("  " + line));
    }

    private record Phase(long rows, double perSecond, double p99Millis) {
    }

    private static Phase run(OutboxWriter writer, int writers) throws Exception {
        HikariDataSource ds = DB.ds();
        AtomicLong keys = new AtomicLong(System.nanoTime());
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        long start = System.nanoTime();
        long end = start + PHASE.toNanos();
        List<Future<long[]>> futures = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            futures.add(pool.submit(() -> {
                long[] latencies = new long[1 << 20];
                int n = 0;
                while (System.nanoTime() < end && n < latencies.length) {
                    long t0 = System.nanoTime();
                    writer.enqueue(ds, OutboxMessage.of("cost", ("{\"n\":" + keys.incrementAndGet() + "}")
                            .getBytes(StandardCharsets.UTF_8)));
                    latencies[n++] = System.nanoTime() - t0;
                }
                return Arrays.copyOf(latencies, n);
            }));
        }
        List<Long> all = new ArrayList<>();
        for (Future<long[]> f : futures) {
            for (long l : f.get()) {
                all.add(l);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        all.sort(null);
        double p99 = all.isEmpty() ? 0 : all.get((int) Math.min(all.size() - 1, Math.ceil(all.size() * 0.99) - 1)) / 1e6;
        return new Phase(all.size(), all.size() / seconds, p99);
    }

    private static long[] rounded(double[] values) {
        return Arrays.stream(values).mapToLong(Math::round).toArray();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
