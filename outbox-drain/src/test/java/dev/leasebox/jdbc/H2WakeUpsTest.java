package dev.leasebox.jdbc;

import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Writers of the drain's own JVM wake it on a database without notifications: the drain's idle poll is 30 s,
 * so only a wake-up explains a delivery within {@link #BOUND}.
 */
class H2WakeUpsTest {

    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(10);

    private HikariDataSource ds;
    private TableName table;
    private final Set<Long> delivered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger idlePolls = new AtomicInteger();
    private Leasebox drain;

    @BeforeEach
    void startIdleDrain() {
        ds = H2TestDatabase.newDatabase();
        table = TestTables.fresh(ds, DatabaseKind.H2, H2TestDatabase.SCHEMA);
        drain = drainBuilder().build();
        drain.start();
        await().atMost(BOUND).until(() -> idlePolls.get() >= 1);
    }

    @AfterEach
    void close() {
        drain.close();
        ds.close();
    }

    @Test
    void aWriterThatOwnsItsCommitWakesTheDrainAfterIt() {
        OutboxWriter.of(table, Clock.systemUTC()).enqueue(ds, message("owned"));

        await().atMost(BOUND).until(() -> delivered.size() == 1);
    }

    @Test
    void aWriterOnTheCallersTransactionWakesTheDrainWhenTheCallerReportsItsCommit() throws Exception {
        OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            writer.enqueue(c, message("in-transaction"));
            c.commit();
        }
        writer.committed();

        await().atMost(BOUND).until(() -> delivered.size() == 1);
    }

    @Test
    void aDrainStartedThroughItsEngineHearsItsWakeUpsToo() {
        drain.close(); // the only drain of the table is the one started through its engine
        idlePolls.set(0);
        try (Leasebox engineStarted = drainBuilder().build()) {
            engineStarted.engine().start();
            await().atMost(BOUND).until(() -> idlePolls.get() >= 1);

            OutboxWriter.of(table, Clock.systemUTC()).enqueue(ds, message("engine"));

            await().atMost(BOUND).until(() -> delivered.size() == 1);
        }
    }

    @Test
    void theDrainSaysWhatWakesIt() {
        assertThat(drain.describe()).endsWith("; woken by writers in this process");
        try (Leasebox unwoken = drainBuilder().wakeUps(false).build()) {
            assertThat(unwoken.describe()).endsWith("; wake-ups off");
        }
    }

    private Leasebox.Builder drainBuilder() {
        return LeaseboxToolBuilder.drain(ds).withoutClaimStyleRegistry().table(table)
                .options(DrainOptions.builder().owner("h2-woken").idlePolling(POLL, POLL).build())
                .listener(new DrainListener() {
                    @Override
                    public void idlePoll() {
                        idlePolls.incrementAndGet();
                    }
                })
                .provider(envelope -> {
                    delivered.add(envelope.entryId());
                    return ProviderOutcome.delivered();
                });
    }

    private static OutboxMessage message(String text) {
        return OutboxMessage.of("order-placed", text.getBytes(StandardCharsets.UTF_8));
    }
}
