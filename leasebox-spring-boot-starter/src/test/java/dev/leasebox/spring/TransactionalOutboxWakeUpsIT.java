package dev.leasebox.spring;

import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.lease.redis.RedisLeaseConfig;
import dev.leasebox.lease.redis.RedisLeaseManager;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.wakeup.WakeUpPublisher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter's {@link TransactionalOutbox} wakes the application's drain after a Spring transaction commits, on
 * MariaDB, which has no commit notification of its own. The drain polls every 30 s while idle, so only a wake-up
 * explains an emission within {@link #BOUND}. The transaction stays open until the drain has spent the few quick
 * looks an entry written inside a transaction earns (decision 0038): past them, only the commit's own wake-up
 * brings the drain back before its poll.
 */
class TransactionalOutboxWakeUpsIT {

    private static final Duration POLL = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final String MARIADB = System.getenv().getOrDefault("LEASEBOX_MARIADB_URL",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root");
    /** The looks a drain takes after an entry written in a transaction (IdleWaits.BURST_POLLS). */
    private static final int LOOKS_FOR_A_PENDING_COMMIT = 5;

    private final TableName table = TableName.parse(TestTables.uniqueName("sb_wake"));
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger idlePolls = new AtomicInteger();
    private final List<RuntimeException> failedCycles = new CopyOnWriteArrayList<>();

    private ApplicationContextRunner runner() {
        OutboxProvider recording = envelope -> {
            delivered.add(envelope.idempotencyKey());
            return ProviderOutcome.delivered();
        };
        DrainListener polls = new DrainListener() {
            @Override
            public void idlePoll() {
                idlePolls.incrementAndGet();
            }

            @Override
            public void cycleFailed(RuntimeException error) {
                failedCycles.add(error);
            }
        };
        LeaseboxCustomizer slowPolling = new LeaseboxCustomizer() {
            @Override
            public void customize(dev.leasebox.Leasebox.Builder builder) {
                builder.options(DrainOptions.builder().owner("spring-woken").concurrency(1).idlePolling(POLL, POLL).build());
            }
        };
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        LeaseboxAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + MARIADB, "leasebox.table=" + table,
                        "leasebox.namespace=" + table)
                .withBean(OutboxProvider.class, () -> recording)
                .withBean(DrainListener.class, () -> polls)
                .withBean(LeaseboxCustomizer.class, () -> slowPolling);
    }

    @BeforeEach
    void createOutbox() throws SQLException {
        new LeaseboxSchema(DatabaseKind.MARIADB, table).applyAll(mariaDb());
    }

    @AfterEach
    void dropOutbox() throws SQLException {
        try (Connection c = mariaDb().getConnection(); Statement st = c.createStatement()) {
            for (String suffix : List.of("", "_lease_slots", "_workers", "_leases", "_claim_styles")) {
                st.execute("DROP TABLE IF EXISTS " + table + suffix);
            }
            st.execute("DROP SEQUENCE IF EXISTS " + table + "_claim_token_seq");
            st.execute("DROP SEQUENCE IF EXISTS " + table + "_lease_fence_seq");
        }
        TestTables.deleteRedisNamespaces(table.toString());
    }

    @Test
    void anEntryEnqueuedInATransactionIsEmittedSoonAfterTheCommitNotAtThePoll() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            awaitIdleDrain();

            tx.executeWithoutResult(status -> {
                int before = idlePolls.get();
                outbox.enqueue(message("order-1"));
                await("the drain's looks for the pending commit, before the commit").atMost(BOUND)
                        .until(() -> idlePolls.get() >= before + LOOKS_FOR_A_PENDING_COMMIT);
            });

            await("the entry emitted after the commit, well before the drain's 30 s poll").atMost(BOUND)
                    .until(() -> delivered.contains("order-1"));
            assertThat(failedCycles).as("the drain's cycles").isEmpty();
        });
    }

    @Test
    void aTransactionIsFollowedByOneWakeUpHoweverManyEntriesItEnqueues() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            tx.executeWithoutResult(status -> {
                int before = TransactionSynchronizationManager.getSynchronizations().size();
                outbox.enqueue(message("order-1"));
                int afterOne = TransactionSynchronizationManager.getSynchronizations().size();
                outbox.enqueue(message("order-2"));
                outbox.enqueue(message("order-3"));
                assertThat(afterOne).as("synchronizations after the first enqueue").isEqualTo(before + 1);
                assertThat(TransactionSynchronizationManager.getSynchronizations()).as("after the third").hasSize(afterOne);
            });
            await().atMost(BOUND).until(() -> delivered.containsAll(Set.of("order-1", "order-2", "order-3")));
        });
    }

    @Test
    void theCommitIsAnnouncedToOtherProcessesThroughTheCoordinatorsChannel() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        AtomicInteger listening = new AtomicInteger();
        try (RedisLeaseManager otherProcess = RedisLeaseManager.start(RedisLeaseConfig.builder().uri(TestTables.REDIS_URI)
                .namespace(table.toString()).poolSize(2).build());
             WakeUpChannel.Subscription ignored = otherProcess.subscribe(WakeUpPublisher.topic(table.qualified()),
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
            runner().withPropertyValues("leasebox.backend=redis", "leasebox.redis.uri=" + TestTables.REDIS_URI).run(context -> {
                assertThat(context).hasNotFailed();
                TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
                TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

                tx.executeWithoutResult(status -> {
                    outbox.enqueue(message("order-1"));
                    await("the pending commit announced").atMost(BOUND).until(() -> heard.contains("commit_pending"));
                    assertThat(heard).as("hints before the commit").doesNotContain("committed");
                });
                await("the commit announced").atMost(BOUND).until(() -> heard.contains("committed"));
            });
        }
    }

    private void awaitIdleDrain() {
        await("the drain's first look").atMost(BOUND).until(() -> idlePolls.get() >= 1);
    }

    private static OutboxMessage message(String key) {
        return OutboxMessage.of("order-placed", key.getBytes(StandardCharsets.UTF_8)).withIdempotencyKey(key);
    }

    private static MariaDbDataSource mariaDb() throws SQLException {
        return new MariaDbDataSource(MARIADB);
    }
}
