package dev.leasebox.spring;

import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.claim.leased.RowBlockLeases;
import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.redis.RedisLeaseConfig;
import dev.leasebox.lease.redis.RedisLeaseManager;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The starter in a Spring context against the real PostgreSQL and Redis of this machine. */
class LeaseboxStarterIT {

    private String table;
    private String orders;
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private final OutboxProvider recording = envelope -> {
        delivered.add(envelope.idempotencyKey());
        return ProviderOutcome.delivered();
    };

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class, LeaseboxAutoConfiguration.class,
                        LeaseboxMetricsAutoConfiguration.class, LeaseboxHealthAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + TestTables.JDBC_URL, "leasebox.table=" + table,
                        "leasebox.namespace=" + table);
    }

    @BeforeEach
    void createTables() throws Exception {
        table = TestTables.outbox(LeaseboxSchema.LATEST_VERSION);
        orders = TestTables.uniqueName("sb_orders");
        TestTables.execute("CREATE TABLE " + orders + " (id text PRIMARY KEY)");
    }

    @AfterEach
    void dropTables() throws Exception {
        TestTables.dropOutbox(table);
        TestTables.execute("DROP TABLE IF EXISTS " + orders);
        TestTables.deleteRedisNamespaces(table, "bean-" + table);
    }

    @Test
    void theOutboxRowCommitsAndRollsBackWithTheBusinessChange() {
        runner().withBean(OutboxProvider.class, () -> recording).run(context -> {
            assertThat(context).hasNotFailed();
            TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO " + orders + " (id) VALUES ('o-1')");
                outbox.enqueue(OutboxMessage.of("order-placed", bytes("o-1")).withIdempotencyKey("order-o-1"));
                assertThat(countElsewhere("SELECT count(*) FROM " + table + " WHERE idempotency_key = 'order-o-1'"))
                        .as("not visible outside the transaction before it commits").isZero();
            });
            assertThat(TestTables.count("SELECT count(*) FROM " + orders + " WHERE id = 'o-1'")).isEqualTo(1);
            assertThat(TestTables.count("SELECT count(*) FROM " + table + " WHERE idempotency_key = 'order-o-1'")).isEqualTo(1);

            tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO " + orders + " (id) VALUES ('o-2')");
                outbox.enqueue(OutboxMessage.of("order-placed", bytes("o-2")).withIdempotencyKey("order-o-2"));
                status.setRollbackOnly();
            });
            assertThat(TestTables.count("SELECT count(*) FROM " + orders + " WHERE id = 'o-2'")).isZero();
            assertThat(TestTables.count("SELECT count(*) FROM " + table + " WHERE idempotency_key = 'order-o-2'")).isZero();

            assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO " + orders + " (id) VALUES ('o-3')");
                outbox.enqueue(OutboxMessage.of("order-placed", bytes("o-3")).withIdempotencyKey("order-o-3"));
                throw new IllegalStateException("payment refused");
            })).hasMessage("payment refused");
            assertThat(TestTables.count("SELECT count(*) FROM " + orders + " WHERE id = 'o-3'")).isZero();
            assertThat(TestTables.count("SELECT count(*) FROM " + table + " WHERE idempotency_key = 'order-o-3'")).isZero();

            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains("order-o-1"));
            assertThat(delivered).doesNotContain("order-o-2", "order-o-3");
        });
    }

    @Test
    void drainsWithTheDatabaseBackendMetersAndReportsHealthAndStopsWithTheContext() {
        runner().withBean(OutboxProvider.class, () -> recording).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LeaseboxDrain drain = context.getBean(LeaseboxDrain.class);
                    assertThat(drain.isRunning()).isTrue();
                    enqueue(context.getBean(TransactionalOutbox.class), 20);
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 20);

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await().atMost(Duration.ofSeconds(10)).until(() -> registry.find("leasebox.emissions")
                            .tag("outcome", "delivered").counter() != null
                            && registry.get("leasebox.emissions").tag("outcome", "delivered").counter().count() == 20);
                    assertThat(registry.get("leasebox.claims").tag("event", "claimed").counter().count()).isEqualTo(20);
                    assertThat(registry.get("leasebox.backlog").gauge().value()).isZero();
                    assertThat(registry.get("leasebox.oldest.pending.age.seconds").gauge().value()).isZero();

                    Health health = context.getBean(LeaseboxHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("schemaVersion", LeaseboxSchema.LATEST_VERSION).containsEntry("coordinator", "database")
                            .containsEntry("running", true).containsEntry("backlog", 0L);

                    context.getSourceApplicationContext().close();
                    assertThat(drain.isRunning()).isFalse();
                    assertThat(drain.leasebox()).isEmpty();
                });
    }

    @Test
    void opensRedisByNameLeasesRowsFromItAndClosesItWithTheContext() {
        runner().withBean(OutboxProvider.class, () -> recording).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("leasebox.backend=redis", "leasebox.redis.uri=" + TestTables.REDIS_URI,
                        "leasebox.concurrency=2", "leasebox.batch=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LeaseboxDrain drain = context.getBean(LeaseboxDrain.class);
                    assertThat(drain.leaseManager()).isPresent();
                    assertThat(drain.leaseManager().get().describe()).containsIgnoringCase("redis");
                    enqueue(context.getBean(TransactionalOutbox.class), 30);
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 30);

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("leasebox.leases").tag("event", "granted").counter().count()).isGreaterThanOrEqualTo(30);
                    Health health = context.getBean(LeaseboxHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("coordinatorReachable", true);
                    assertThat((String) health.getDetails().get("coordinator")).containsIgnoringCase("redis");

                    context.getSourceApplicationContext().close();
                    assertThat(drain.isRunning()).isFalse();
                    assertThat(drain.leaseManager()).isEmpty();
                });
    }

    @Test
    void groupsRowsUnderSharedLeasesAsTheCliDoes() {
        runner().withBean(OutboxProvider.class, () -> recording)
                .withPropertyValues("leasebox.backend=redis", "leasebox.redis.uri=" + TestTables.REDIS_URI,
                        "leasebox.backend-options.row-group-block=16", "leasebox.backend-options.row-groups=64")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LeaseboxDrain drain = context.getBean(LeaseboxDrain.class);
                    assertThat(drain.coordinator()).get().isInstanceOf(GroupedLeaseManager.class);
                    assertThat(RowBlockLeases.of(drain.coordinator().get())).isEqualTo(16);
                    enqueue(context.getBean(TransactionalOutbox.class), 40);
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 40);
                });
    }

    @Test
    void closingTheContextLetsAnEmissionInFlightFinishAndRecordsIt() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OutboxProvider slow = envelope -> {
            entered.countDown();
            release.await();
            return ProviderOutcome.delivered();
        };
        runner().withBean(OutboxProvider.class, () -> slow).run(context -> {
            assertThat(context).hasNotFailed();
            LeaseboxDrain drain = context.getBean(LeaseboxDrain.class);
            context.getBean(TransactionalOutbox.class)
                    .enqueue(OutboxMessage.of("event", bytes("in-flight")).withIdempotencyKey("in-flight"));
            assertThat(entered.await(30, TimeUnit.SECONDS)).as("the provider was called").isTrue();

            Thread closer = new Thread(() -> context.getSourceApplicationContext().close(), "context-close");
            closer.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> !drain.isRunning());
            assertThat(closer.isAlive()).as("the close waits for the emission in flight").isTrue();
            release.countDown();
            closer.join(Duration.ofSeconds(30).toMillis());
            assertThat(closer.isAlive()).isFalse();
            assertThat(TestTables.count("SELECT count(*) FROM " + table
                    + " WHERE idempotency_key = 'in-flight' AND status = 'DELIVERED'")).isEqualTo(1);
        });
    }

    @Test
    void leasesFromTheApplicationsLeaseManagerBean() {
        RedisLeaseManager[] bean = new RedisLeaseManager[1];
        runner().withBean(OutboxProvider.class, () -> recording)
                .withBean(LeaseManager.class, () -> bean[0] = RedisLeaseManager.start(RedisLeaseConfig.builder()
                        .uri(TestTables.REDIS_URI).namespace("bean-" + table).build()))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LeaseboxDrain drain = context.getBean(LeaseboxDrain.class);
                    assertThat(drain.coordinator()).containsSame(bean[0]);
                    enqueue(context.getBean(TransactionalOutbox.class), 10);
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 10);
                });
    }

    @Test
    void partitionLeasesInTheTableAreMeteredToo() {
        runner().withBean(OutboxProvider.class, () -> recording).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("leasebox.granularity=partition", "leasebox.lease-ttl=5s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    enqueue(context.getBean(TransactionalOutbox.class), 15);
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 15);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("leasebox.leases").tag("event", "granted").counter().count())
                            .as("slot leases from the table's own lease manager").isPositive();
                    assertThat(context.getBean(LeaseboxDrain.class).leasebox().orElseThrow().describe()).contains("partition leases");
                });
    }

    @Test
    void aRedisThatCannotBeReachedFailsTheStartNamingTheProperty() {
        runner().withBean(OutboxProvider.class, () -> recording)
                .withPropertyValues("leasebox.backend=redis", "leasebox.redis.uri=redis://127.0.0.1:1",
                        // backend options reach the backend: short timeouts shorten the client's retries
                        "leasebox.backend-options.connect-timeout=200ms", "leasebox.backend-options.socket-timeout=200ms")
                .run(context -> {
                    assertThat(context).hasFailed();
                    String trace = org.assertj.core.util.Throwables.getStackTrace(context.getStartupFailure());
                    assertThat(trace).contains("leasebox.backend=redis at leasebox.redis.uri=redis://127.0.0.1:1 cannot be opened")
                            .contains("127.0.0.1:1").doesNotContain("unknown redis backend option");
                });
    }

    @Test
    void healthIsDownWhileTheOldestPendingEntryIsOlderThanTheThreshold() {
        OutboxProvider failing = envelope -> ProviderOutcome.retryable("receiver unavailable");
        runner().withBean(OutboxProvider.class, () -> failing)
                .withPropertyValues("leasebox.health.oldest-pending-threshold=200ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LeaseboxHealthIndicator indicator = context.getBean(LeaseboxHealthIndicator.class);
                    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
                    enqueue(context.getBean(TransactionalOutbox.class), 1);
                    await().atMost(Duration.ofSeconds(30)).until(() -> indicator.health().getStatus().equals(Status.DOWN));
                    Health health = indicator.health();
                    assertThat(health.getDetails()).containsEntry("oldestPendingThreshold", "PT0.2S")
                            .containsEntry("coordinator", "database").containsEntry("schemaVersion", LeaseboxSchema.LATEST_VERSION);
                });
    }

    @Test
    void schemaVersionCountsTheMigrationsPresent() throws Exception {
        String partial = TestTables.outbox(2);
        try {
            assertThat(new OutboxTableReport(TestTables.dataSource(), dev.leasebox.jdbc.TableName.parse(partial)).schemaVersion())
                    .isEqualTo(2);
            assertThat(new OutboxTableReport(TestTables.dataSource(), dev.leasebox.jdbc.TableName.parse(table)).schemaVersion())
                    .isEqualTo(LeaseboxSchema.LATEST_VERSION);
            assertThat(new OutboxTableReport(TestTables.dataSource(), dev.leasebox.jdbc.TableName.parse("sb_missing_table"))
                    .schemaVersion()).isZero();
        } finally {
            TestTables.dropOutbox(partial);
        }
    }

    private static void enqueue(TransactionalOutbox outbox, int count) {
        for (int i = 0; i < count; i++) {
            outbox.enqueue(OutboxMessage.of("event", bytes("e-" + i)).withIdempotencyKey("e-" + i));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static long countElsewhere(String sql) {
        try {
            return TestTables.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
