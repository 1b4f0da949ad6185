package dev.leasebox.spring;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox table's migrations when the drain starts, against the real PostgreSQL: refused without every one
 * (the analysis names leasebox.schema.apply and the CLI command), applied with leasebox.schema.apply=true, and
 * the health indicator DOWN when a migration's objects disappear from a running application's table.
 */
class LeaseboxSchemaAtStartIT {

    private final List<String> tables = new ArrayList<>();
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private final OutboxProvider recording = envelope -> {
        delivered.add(envelope.idempotencyKey());
        return ProviderOutcome.delivered();
    };

    private ApplicationContextRunner runner(String table) {
        tables.add(table);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LeaseboxAutoConfiguration.class,
                        LeaseboxHealthAutoConfiguration.class))
                .withBean(OutboxProvider.class, () -> recording)
                .withPropertyValues("spring.datasource.url=" + TestTables.JDBC_URL, "leasebox.table=" + table);
    }

    @AfterEach
    void dropTables() throws Exception {
        for (String table : tables) {
            TestTables.dropOutbox(table);
        }
    }

    @Test
    void aTableWithoutTheNewestMigrationsFailsTheStartNamingThePropertyAndTheCommand() throws Exception {
        String table = TestTables.outbox(4);
        runner(table).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LeaseboxStartFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).startsWith("Leasebox cannot drain its outbox: Outbox table " + table)
                    .contains("is at migration V4 of V" + LeaseboxSchema.LATEST_VERSION)
                    .contains("apply db/leasebox/postgresql/V5__lean_claim_queue.sql to V8__count_takeovers.sql")
                    .doesNotContain("\n");
            assertThat(analysis.getAction()).contains("leasebox.schema.apply=true")
                    .contains("leasebox schema --apply --jdbc-url <url> --table " + table).contains("Flyway or Liquibase");
        });
        assertThat(version(table)).as("nothing applied without the property").isEqualTo(4);
    }

    @Test
    void applyTrueCreatesAMissingTableAndTheDrainDeliversFromIt() {
        String table = TestTables.uniqueName("sb_apply");
        runner(table).withPropertyValues("leasebox.schema.apply=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(version(table)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
            context.getBean(TransactionalOutbox.class).enqueue(OutboxMessage.of("event",
                    "e".getBytes(StandardCharsets.UTF_8)).withIdempotencyKey("applied-1"));
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.contains("applied-1"));
            assertThat(context.getBean(LeaseboxHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void applyTrueCompletesATableThatLacksMigrations() {
        String table = TestTables.outbox(4);
        runner(table).withPropertyValues("leasebox.schema.apply=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(version(table)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
        });
    }

    @Test
    void aTableWithTheLongestNameStartsAgainOnceApplied() {
        String table = TestTables.uniqueName("sb_apply_the_longest_name_40"); // 37 characters: its registry's name is 50
        runner(table).withPropertyValues("leasebox.schema.apply=true").run(context -> assertThat(context).hasNotFailed());
        runner(table).run(context -> {
            assertThat(context).as("the table has every migration now").hasNotFailed();
            assertThat(context.getBean(LeaseboxHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void twoInstancesApplyingAtOnceBothStart() throws Exception {
        String table = TestTables.uniqueName("sb_apply_race");
        tables.add(table);
        SchemaAtStart schema = new SchemaAtStart(TableName.parse(table), true, LeaseboxSchema.DEFAULT_SLOT_COUNT);
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> starts = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                starts.add(pool.submit(() -> {
                    together.await(30, TimeUnit.SECONDS);
                    schema.prepare(TestTables.dataSource());
                    return null;
                }));
            }
            for (Future<?> start : starts) {
                start.get(60, TimeUnit.SECONDS); // neither fails
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(version(table)).isEqualTo(LeaseboxSchema.LATEST_VERSION);
    }

    @Test
    void aBadSlotCountFailsNamingTheProperty() {
        runner(TestTables.uniqueName("sb_slots")).withPropertyValues("leasebox.schema.apply=true", "leasebox.schema.slots=0")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(LeaseboxConfigurationException.class)
                            .hasMessage("leasebox.schema.slots must be in 1..65536, was 0");
                });
    }

    @Test
    void healthIsDownWhenARunningApplicationsTableLosesAMigration() throws Exception {
        String table = TestTables.outbox(LeaseboxSchema.LATEST_VERSION);
        runner(table).run(context -> {
            assertThat(context).hasNotFailed();
            LeaseboxHealthIndicator indicator = context.getBean(LeaseboxHealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

            TestTables.execute("DROP INDEX " + table + "_claim_queue");
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("schemaVersion", 4)
                    .containsEntry("schema", "apply V5 to V" + LeaseboxSchema.LATEST_VERSION + " (db/leasebox/<database>/)");
        });
    }

    private static int version(String table) throws Exception {
        return new OutboxTableReport(TestTables.dataSource(), TableName.parse(table)).schemaVersion();
    }
}
