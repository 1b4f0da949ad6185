package dev.leasebox.cli;

import dev.leasebox.metrics.BacklogGauges;
import dev.leasebox.jdbc.OutboxTableStatus;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.MonotonicClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The backlog gauges people alert on keep reporting after the objects behind them could be collected. */
class BacklogGaugesTest {

    @Test
    void theBacklogGaugesSurviveAGarbageCollection() {
        String url = "jdbc:h2:mem:gauges-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        assertThat(CliRun.of("schema", "--apply", "--jdbc-url", url).exitCode()).isZero();
        assertThat(CliRun.of("enqueue", "--jdbc-url", url, "--count", "7").exitCode()).isZero();
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            // nothing but the registry refers to what the gauges read, as in the worker
            BacklogGauges.register(registry, new OutboxTableStatus(dataSource, TableName.DEFAULT), MonotonicClock.system());
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            String scrape = registry.scrape();
            assertThat(scrape).contains("leasebox_backlog 7.0").doesNotContainPattern("(?m)^leasebox_\\S+ NaN$");
            assertThat(scrape).containsPattern("leasebox_oldest_pending_age_seconds \\d");
            assertThat(scrape.lines().filter(l -> l.startsWith("# HELP ")))
                    .allSatisfy(help -> assertThat(help).as("a HELP line with text").matches("# HELP \\S+ \\S.*"));
        } finally {
            registry.close();
        }
    }
}
