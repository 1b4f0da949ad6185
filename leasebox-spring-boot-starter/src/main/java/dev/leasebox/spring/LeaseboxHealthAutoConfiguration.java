package dev.leasebox.spring;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.time.Clock;

/** The {@code leasebox} health component, when the Actuator is on the class path ({@code management.health.leasebox.enabled}). */
@AutoConfiguration(after = LeaseboxAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.actuate.health.HealthIndicator",
        "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"})
@ConditionalOnBean(LeaseboxDrain.class)
@ConditionalOnEnabledHealthIndicator("leasebox")
public class LeaseboxHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "leaseboxHealthIndicator")
    public LeaseboxHealthIndicator leaseboxHealthIndicator(LeaseboxDrain drain, OutboxTableReport report,
                                                           LeaseboxProperties properties) {
        return new LeaseboxHealthIndicator(drain, report, properties.getHealth().getOldestPendingThreshold(), Clock.systemUTC());
    }
}
