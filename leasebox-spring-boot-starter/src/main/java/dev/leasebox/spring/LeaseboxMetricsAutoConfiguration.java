package dev.leasebox.spring;

import dev.leasebox.metrics.DrainMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * The drain's meters in the application's {@link MeterRegistry}, when Micrometer is on the class path and a
 * registry is defined. After the registry's auto-configurations under Boot 4's names and Boot 3.5's: a name that
 * is not on the class path is ignored.
 */
@AutoConfiguration(after = LeaseboxAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, LeaseboxDrain.class})
public class LeaseboxMetricsAutoConfiguration {

    @Bean
    public LeaseboxMetrics leaseboxMetrics(MeterRegistry registry, OutboxTableReport report) {
        return new LeaseboxMetrics(registry, report, Clock.systemUTC());
    }

    /** A DrainListener bean: the drain takes it with the application's own listeners. */
    @Bean
    public DrainMetrics leaseboxDrainMetrics(LeaseboxMetrics metrics) {
        return metrics.drainMetrics();
    }
}
