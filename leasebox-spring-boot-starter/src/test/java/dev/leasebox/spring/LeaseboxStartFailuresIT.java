package dev.leasebox.spring;

import dev.leasebox.jdbc.LeaseboxSchema;
import dev.leasebox.lease.spi.ClientVersionException;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.beans.BeanUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a Spring Boot start prints when the outbox table or its database is not there. */
class LeaseboxStartFailuresIT {

    private final OutboxProvider provider = envelope -> ProviderOutcome.delivered();

    private ApplicationContextRunner runner(String jdbcUrl, String table) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        LeaseboxAutoConfiguration.class))
                .withBean(OutboxProvider.class, () -> provider)
                .withPropertyValues("spring.datasource.url=" + jdbcUrl, "leasebox.table=" + table,
                        "spring.datasource.hikari.initialization-fail-timeout=-1");
    }

    @Test
    void aMissingTableIsAnalysedAsTheMigrationsToApply() {
        String table = TestTables.uniqueName("sb_missing");
        runner(TestTables.JDBC_URL, table).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyse(context.getStartupFailure());
            assertThat(analysis.getDescription()).startsWith("Leasebox cannot drain its outbox: Outbox table " + table + " does not exist")
                    .contains("apply the scripts of db/leasebox/postgresql/ in order (V1 to V" + LeaseboxSchema.LATEST_VERSION + ")")
                    .doesNotContain("\n");
            assertThat(analysis.getAction()).contains("leasebox.schema.apply=true").contains("Flyway or Liquibase")
                    .contains("leasebox schema --apply");
        });
    }

    @Test
    void anUnreachableDatabaseIsAnalysedAsOneLine() {
        runner("jdbc:postgresql://127.0.0.1:1/test", TestTables.uniqueName("sb_unreachable"))
                .withPropertyValues("spring.datasource.hikari.connection-timeout=250")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyse(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .startsWith("Leasebox cannot drain its outbox: Cannot reach the outbox database at jdbc:postgresql://127.0.0.1:1/test")
                            .doesNotContain("\n");
                    assertThat(analysis.getAction()).contains("spring.datasource.url");
                });
    }

    @Test
    void aClientLibraryTooOldIsAnalysedAsThePinBeforeThePropertyThatOpenedIt() {
        ClientVersionException old = new ClientVersionException("lease-redis needs Jedis 7.2 or later (built with "
                + "redis.clients:jedis 8.0.2), but the class path has Jedis 6.0.0: pin jedis 8.0.2", "redis.clients:jedis",
                "6.0.0", "jedis.version", "8.0.2");
        Throwable failure = new IllegalStateException("Leasebox cannot drain t: ...", new LeaseboxConfigurationException(
                "leasebox.backend=redis at leasebox.redis.uri=redis://127.0.0.1:6379 cannot be opened: " + old.getMessage(), old));

        FailureAnalysis analysis = firstLeaseboxAnalysis(failure);
        assertThat(analysis.getDescription()).isEqualTo(old.getMessage());
        assertThat(analysis.getAction()).startsWith("Pin redis.clients:jedis 8.0.2: set <jedis.version>8.0.2</jedis.version>"
                + " in the <properties> of your pom.xml (Gradle: ext['jedis.version'] = '8.0.2')");
    }

    /** What Spring Boot's FailureAnalyzers does with the starter's analyzers: the first analysis, in their order. */
    private static FailureAnalysis firstLeaseboxAnalysis(Throwable failure) {
        List<FailureAnalyzer> analyzers = new ArrayList<>();
        for (String name : SpringFactoriesLoader.loadFactoryNames(FailureAnalyzer.class, LeaseboxStartFailuresIT.class.getClassLoader())) {
            if (name.startsWith("dev.leasebox.")) {
                analyzers.add((FailureAnalyzer) BeanUtils.instantiateClass(ClassUtils.resolveClassName(name, null)));
            }
        }
        AnnotationAwareOrderComparator.sort(analyzers);
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("no Leasebox analyzer analysed " + failure);
    }

    /** The analysis Spring Boot prints: the analyzer it finds through spring.factories, applied to the start's failure. */
    private static FailureAnalysis analyse(Throwable failure) {
        List<String> analyzers = SpringFactoriesLoader.loadFactoryNames(FailureAnalyzer.class, LeaseboxStartFailuresIT.class.getClassLoader());
        assertThat(analyzers).contains(LeaseboxStartFailureAnalyzer.class.getName());
        FailureAnalysis analysis = new LeaseboxStartFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("analysed, not a bare trace: " + failure).isNotNull();
        return analysis;
    }
}
