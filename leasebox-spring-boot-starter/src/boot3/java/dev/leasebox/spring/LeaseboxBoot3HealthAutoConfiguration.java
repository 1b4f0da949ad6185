package dev.leasebox.spring;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * The {@code leasebox} health component on Spring Boot 3.5, when its Actuator is on the class path
 * ({@code management.health.leasebox.enabled}). The class names are strings: on Boot 4, where neither class
 * exists, this configuration is skipped unread and {@link LeaseboxHealthAutoConfiguration} applies.
 */
@AutoConfiguration(after = LeaseboxAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.actuate.health.HealthIndicator",
        "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"})
@ConditionalOnBean(LeaseboxDrain.class)
@ConditionalOnEnabledHealthIndicator("leasebox")
public class LeaseboxBoot3HealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public LeaseboxHealthCheck leaseboxHealthCheck(LeaseboxDrain drain, OutboxTableReport report, LeaseboxProperties properties) {
        return new LeaseboxHealthCheck(drain, report, properties.getHealth().getOldestPendingThreshold(), Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean(name = "leaseboxHealthIndicator")
    public LeaseboxBoot3HealthIndicator leaseboxHealthIndicator(LeaseboxHealthCheck check) {
        return new LeaseboxBoot3HealthIndicator(check);
    }
}
