package dev.leasebox.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/**
 * The {@code leasebox} health component on Spring Boot 4, when its health module is on the class path
 * ({@code management.health.leasebox.enabled}). Boot 3.5 has its own: {@code LeaseboxBoot3HealthAutoConfiguration}.
 * The class names are strings: on Boot 3.5 neither class exists and this configuration is skipped unread.
 */
@AutoConfiguration(after = LeaseboxAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthIndicator",
        "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"})
@ConditionalOnBean(LeaseboxDrain.class)
@ConditionalOnEnabledHealthIndicator("leasebox")
public class LeaseboxHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public LeaseboxHealthCheck leaseboxHealthCheck(LeaseboxDrain drain, OutboxTableReport report, LeaseboxProperties properties) {
        return new LeaseboxHealthCheck(drain, report, properties.getHealth().getOldestPendingThreshold(), Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean(name = "leaseboxHealthIndicator")
    public LeaseboxHealthIndicator leaseboxHealthIndicator(LeaseboxHealthCheck check) {
        return new LeaseboxHealthIndicator(check);
    }
}
