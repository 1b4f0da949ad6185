package dev.leasebox.spring;

import dev.leasebox.drain.OutboxProvider;
import dev.leasebox.drain.ProviderOutcome;
import dev.leasebox.jdbc.LeaseboxSchema;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

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
            assertThat(analysis.getAction()).contains("Flyway or Liquibase").contains("leasebox schema --apply");
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

    /** The analysis Spring Boot prints: the analyzer it finds through spring.factories, applied to the start's failure. */
    private static FailureAnalysis analyse(Throwable failure) {
        List<String> analyzers = SpringFactoriesLoader.loadFactoryNames(FailureAnalyzer.class, LeaseboxStartFailuresIT.class.getClassLoader());
        assertThat(analyzers).contains(LeaseboxStartFailureAnalyzer.class.getName());
        FailureAnalysis analysis = new LeaseboxStartFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("analysed, not a bare trace: " + failure).isNotNull();
        return analysis;
    }
}
