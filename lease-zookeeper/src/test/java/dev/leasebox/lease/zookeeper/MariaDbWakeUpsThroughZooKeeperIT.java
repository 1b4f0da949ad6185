package dev.leasebox.lease.zookeeper;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.OutboxWriter;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testing.LeaseboxToolBuilder;
import dev.leasebox.wakeup.WakeUp;
import dev.leasebox.wakeup.WakeUpPublisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drain on MariaDB, which has no commit notification, woken through a watched ZooKeeper node by another
 * process: another lease manager (its own ZooKeeper session) on the same namespace plays that process. The
 * drain's idle poll is 30 s, so only a hint explains a delivery within {@link #BOUND}. The writer's side (that
 * {@link OutboxWriter} publishes, after its commit or with a pending one) and the drain's side (that a published
 * hint wakes it, the row inserted by plain SQL so that no writer of this JVM wakes it directly) are shown apart.
 */
class MariaDbWakeUpsThroughZooKeeperIT {

    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(15);
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    @RegisterExtension
    static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

    private static HikariDataSource ds;

    private final String namespace = "leasebox-it-wake-" + UUID.randomUUID().toString().substring(0, 8);
    private final TableName table = new TableName("", "wake_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    private final Set<Long> delivered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger idlePolls = new AtomicInteger();
    private final List<RuntimeException> failedCycles = new CopyOnWriteArrayList<>();
    private ZooKeeperLeaseManager drainsManager;
    private ZooKeeperLeaseManager writersManager;
    private Leasebox drain;

    @BeforeAll
    static void openDatabase() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(MARIADB);
        config.setMaximumPoolSize(6);
        ds = new HikariDataSource(config);
    }

    @AfterAll
    static void closeDatabase() {
        if (ds != null) {
            ds.close();
        }
    }

    @BeforeEach
    void openOutbox() {
        new LeaseboxSchema(DatabaseKind.MARIADB, table).applyAll(ds);
        drainsManager = manager();
        writersManager = manager();
    }

    @AfterEach
    void closeOutbox() {
        if (drain != null) {
            drain.close(); // before the extension closes the managers after this method
        }
        for (String suffix : List.of("", "_lease_slots", "_workers", "_leases", "_claim_styles")) {
            execute("DROP TABLE IF EXISTS " + table + suffix);
        }
        execute("DROP SEQUENCE IF EXISTS " + table + "_claim_token_seq");
        execute("DROP SEQUENCE IF EXISTS " + table + "_lease_fence_seq");
    }

    @Test
    void aHintFromAnotherProcessWakesAnIdleDrainOnMariaDb() {
        startDrain();

        execute("INSERT INTO " + table + " (idempotency_key, type, payload, created_at) "
                + "VALUES ('plain-1', 'order-placed', x'7b7d', UTC_TIMESTAMP(6))");
        new WakeUpPublisher(writersManager, table.qualified()).publish(WakeUp.COMMITTED);

        await("the idle drain emits the row the hint announced").atMost(BOUND).until(() -> delivered.size() == 1);
    }

    @Test
    void aWriterPublishesACommittedHintAfterItsCommitAndAPendingOneInsideATransaction() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        AtomicInteger listening = new AtomicInteger();
        try (WakeUpChannel.Subscription ignored = manager().subscribe(WakeUpPublisher.topic(table.qualified()),
                new WakeUpChannel.Listener() {
                    @Override
                    public void hint(String hint) {
                        heard.add(hint);
                    }

                    @Override
                    public void subscribed() {
                        listening.incrementAndGet();
                    }
                })) {
            await().atMost(BOUND).until(() -> listening.get() > 0);
            OutboxWriter writer = OutboxWriter.of(table, Clock.systemUTC()).wakeUpsThrough(writersManager);

            writer.enqueue(ds, message("owned"));
            await("a committed hint after enqueue(DataSource, …)").atMost(BOUND).until(() -> heard.contains("committed"));

            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                writer.enqueue(c, message("in-transaction"));
                c.commit();
            }
            await("a commit_pending hint after enqueue(Connection, …) in a transaction").atMost(BOUND)
                    .until(() -> heard.contains("commit_pending"));
        }
    }

    @Test
    void theDrainOfAWriterPublishingThroughZooKeeperSaysSo() {
        startDrain();
        assertThat(drain.describe()).contains("woken by writers in this process, the coordinator's channel");
    }

    private void startDrain() {
        drain = LeaseboxToolBuilder.drain(ds).withoutClaimStyleRegistry().table(table).leases(drainsManager)
                .options(DrainOptions.builder().owner("mariadb-woken").idlePolling(POLL, POLL).build())
                .listener(new DrainListener() {
                    @Override
                    public void idlePoll() {
                        idlePolls.incrementAndGet();
                    }

                    @Override
                    public void cycleFailed(RuntimeException error) {
                        failedCycles.add(error);
                    }
                })
                .provider(envelope -> {
                    delivered.add(envelope.entryId());
                    return ProviderOutcome.delivered();
                }).build();
        drain.start();
        await().atMost(BOUND).until(() -> idlePolls.get() >= 2); // the first look, and the one on subscribing
        assertThat(failedCycles).as("the drain's idle cycles").isEmpty();
    }

    private ZooKeeperLeaseManager manager() {
        return ZOOKEEPER.manager(ZOOKEEPER.config(namespace));
    }

    private static OutboxMessage message(String text) {
        return OutboxMessage.of("order-placed", text.getBytes(StandardCharsets.UTF_8));
    }

    private static void execute(String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
