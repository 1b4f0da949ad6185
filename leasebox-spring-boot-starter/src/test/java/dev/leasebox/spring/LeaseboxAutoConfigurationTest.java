package dev.leasebox.spring;

import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the properties turn into, and how bad ones fail the start; no server is contacted. */
class LeaseboxAutoConfigurationTest {

    /** A DataSource nobody connects to: every context here fails or stays off before the drain starts. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseboxAutoConfiguration.class, LeaseboxMetricsAutoConfiguration.class,
                    LeaseboxHealthAutoConfiguration.class))
            .withBean(DataSource.class, () -> {
                PGSimpleDataSource ds = new PGSimpleDataSource();
                ds.setUrl("jdbc:postgresql://127.0.0.1:1/never");
                return ds;
            });

    @Test
    void enabledFalseConfiguresNothing() {
        runner.withPropertyValues("leasebox.enabled=false", "leasebox.provider=log").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(LeaseboxDrain.class);
            assertThat(context).doesNotHaveBean(TransactionalOutbox.class);
            assertThat(context).doesNotHaveBean(LeaseboxHealthIndicator.class);
        });
    }

    @Test
    void withoutADataSourceNothingIsConfigured() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LeaseboxAutoConfiguration.class))
                .withPropertyValues("leasebox.provider=log")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseboxDrain.class));
    }

    @Test
    void redisWithoutItsUriFailsNamingTheProperty() {
        assertStartFails("leasebox.backend=redis needs leasebox.redis.uri", "leasebox.backend=redis", "leasebox.provider=log");
        assertStartFails("or a LeaseManager bean", "leasebox.backend=redis", "leasebox.provider=log");
    }

    @Test
    void zooKeeperWithoutItsModuleSaysWhichToAdd() {
        assertStartFails("leasebox.backend=zookeeper: lease backend 'zookeeper' is not on the class path: add the module lease-zookeeper",
                "leasebox.backend=zookeeper", "leasebox.zookeeper.connect=127.0.0.1:2181", "leasebox.provider=log");
    }

    @Test
    void badNumbersFailNamingTheProperty() {
        assertStartFails("leasebox.batch must be in 1..10000, was 0", "leasebox.batch=0", "leasebox.provider=log");
        assertStartFails("leasebox.concurrency must be in 1..256, was 300", "leasebox.concurrency=300", "leasebox.provider=log");
        assertStartFails("leasebox.lease-ttl must be at least 1s", "leasebox.lease-ttl=0s", "leasebox.provider=log");
        assertStartFails("leasebox.max-attempts must be at least 1", "leasebox.max-attempts=0", "leasebox.provider=log");
        assertStartFails("leasebox.backoff.max=1s is below leasebox.backoff.initial=10s",
                "leasebox.backoff.initial=10s", "leasebox.backoff.max=1s", "leasebox.provider=log");
        assertStartFails("leasebox.namespace must be 1-64 characters", "leasebox.namespace=a b", "leasebox.provider=log");
        assertStartFails("leasebox.candidate-spread must be in 1..100, was 500", "leasebox.candidate-spread=500",
                "leasebox.provider=log");
        assertStartFails("leasebox.backoff.jitter must be between 0 and 1", "leasebox.backoff.jitter=2", "leasebox.provider=log");
        assertStartFails("leasebox.table=bad-name is not a table name", "leasebox.table=bad-name", "leasebox.provider=log");
    }

    @Test
    void leanClaimsInTheDatabaseAreRefused() {
        assertStartFails("leasebox.claim-mode=lean needs leases from a coordinator (leasebox.backend=redis|zookeeper|hazelcast)"
                + " or leasebox.granularity=partition", "leasebox.claim-mode=lean", "leasebox.provider=log");
        assertStartFails("leasebox.release-after-completion and leasebox.release-in-background apply to external lease "
                + "backends only", "leasebox.release-in-background=true", "leasebox.provider=log");
        assertStartFails("leasebox.ordered needs leasebox.granularity=partition", "leasebox.ordered=true", "leasebox.provider=log");
    }

    @Test
    void aProviderIsRequiredAndItsSpecChecked() {
        assertStartFails("leasebox needs a provider: define an OutboxProvider bean or set leasebox.provider");
        assertStartFails("leasebox.provider=carrier-pigeon:coop names no provider on the class path: use ",
                "leasebox.provider=carrier-pigeon:coop");
        assertStartFails("leasebox.provider=http needs a target: http:URL", "leasebox.provider=http");
    }

    @Test
    void anOutboxProviderBeanWinsOverTheSpec() {
        LeaseboxProperties properties = new LeaseboxProperties();
        properties.setProvider("log");
        assertThat(PropertySettings.from(properties, false, true).provider()).isEmpty();
        assertThat(PropertySettings.from(properties, false, false).provider().orElseThrow().kind()).isEqualTo("log");
    }

    @Test
    void aLeaseManagerBeanWinsOverOpeningTheBackendByName() {
        LeaseboxProperties properties = new LeaseboxProperties();
        properties.setProvider("log");
        assertThat(PropertySettings.from(properties, false, false).backend()).contains("database");
        assertThat(PropertySettings.from(properties, true, false).backend()).as("the bean's leases").isEmpty();
        properties.setBackend(LeaseboxProperties.Backend.REDIS);
        assertThat(PropertySettings.from(properties, true, false).backend()).as("the bean's leases").isEmpty();
        properties.setBackend(LeaseboxProperties.Backend.DATABASE);
        assertThat(PropertySettings.from(properties, true, false).backend())
                .as("leasebox.backend=database set explicitly claims in the table").contains("database");
    }

    @Test
    void theFailureAnalyzerPrintsThePropertyToFix() {
        LeaseboxConfigurationException cause = new LeaseboxConfigurationException("leasebox.backend=redis needs leasebox.redis.uri");
        var analysis = new LeaseboxFailureAnalyzer().analyze(new IllegalStateException("wrapped", cause));
        assertThat(analysis.getDescription()).isEqualTo("leasebox.backend=redis needs leasebox.redis.uri");
        assertThat(analysis.getAction()).contains("leasebox.enabled=false");
    }

    @Test
    void theSchemaPropertiesDefaultToNoApplyAndTheLibrarysSlotCount() {
        LeaseboxProperties properties = new LeaseboxProperties();
        assertThat(properties.getSchema().isApply()).isFalse();
        assertThat(properties.getSchema().getSlots()).isEqualTo(dev.leasebox.jdbc.LeaseboxSchema.DEFAULT_SLOT_COUNT);
    }

    @Test
    void metadataDescribesTheProperties() throws Exception {
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"leasebox.enabled\"", "\"leasebox.backend\"", "\"leasebox.redis.uri\"",
                    "\"leasebox.zookeeper.connect\"", "\"leasebox.hazelcast.members\"", "\"leasebox.namespace\"",
                    "\"leasebox.table\"", "\"leasebox.provider\"", "\"leasebox.batch\"", "\"leasebox.concurrency\"",
                    "\"leasebox.lease-ttl\"", "\"leasebox.claim-mode\"", "\"leasebox.granularity\"",
                    "\"leasebox.max-attempts\"", "\"leasebox.backoff.initial\"", "\"leasebox.backoff.max\"",
                    "\"leasebox.health.oldest-pending-threshold\"", "\"leasebox.schema.apply\"", "\"leasebox.schema.slots\"");
            assertThat(json).as("value hints merged from additional-spring-configuration-metadata.json")
                    .contains("\"hints\"", "\"jdbc-inbox:\"", "\"zookeeper\"");
        }
    }

    @Test
    void aProviderBeanNeedsNoSpec() {
        OutboxProvider provider = envelope -> ProviderOutcome.delivered();
        runner.withPropertyValues("leasebox.backend=redis").withBean(OutboxProvider.class, () -> provider)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().hasMessageContaining("leasebox.backend=redis needs leasebox.redis.uri"));
    }

    private void assertStartFails(String message, String... properties) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            assertThatThrownBy(() -> {
                throw context.getStartupFailure();
            }).rootCause().isInstanceOf(LeaseboxConfigurationException.class).hasMessageContaining(message);
        });
    }
}
