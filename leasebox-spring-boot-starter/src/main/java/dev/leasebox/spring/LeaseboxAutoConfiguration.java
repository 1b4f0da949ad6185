package dev.leasebox.spring;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.provider.OutboxProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import javax.sql.DataSource;
import java.time.Clock;

/**
 * The drain of {@code leasebox.table} in the application's {@link DataSource}, started and stopped with the
 * context, and the {@link TransactionalOutbox} that writes into that table. {@code leasebox.enabled=false}
 * leaves both out.
 */
// Boot 3.5's name and Boot 4's: a name that is not on the class path is ignored.
@AutoConfiguration(afterName = {"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnProperty(prefix = "leasebox", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(LeaseboxProperties.class)
public class LeaseboxAutoConfiguration {

    /** The properties, checked: a bad one fails the start here, named, before anything is opened. */
    @Bean
    LeaseboxSettings leaseboxSettings(LeaseboxProperties properties, ObjectProvider<LeaseManager> leaseManager,
                                      ObjectProvider<OutboxProvider> provider) {
        return PropertySettings.from(properties, leaseManager.getIfUnique() != null, provider.getIfUnique() != null);
    }

    @Bean
    @ConditionalOnMissingBean
    public LeaseboxDrain leaseboxDrain(DataSource dataSource, LeaseboxSettings settings, LeaseboxProperties properties,
                                       ObjectProvider<LeaseManager> leaseManager, ObjectProvider<OutboxProvider> provider,
                                       ObjectProvider<DrainListener> listeners, ObjectProvider<LeaseboxCustomizer> customizers) {
        return new LeaseboxDrain(dataSource, settings, settings.backend().isEmpty() ? leaseManager.getIfUnique() : null,
                provider.getIfUnique(), listeners.orderedStream().toList(), customizers.orderedStream().toList(),
                SchemaAtStart.from(properties.getSchema(), settings.table()));
    }

    @Bean
    @ConditionalOnMissingBean
    public TransactionalOutbox transactionalOutbox(DataSource dataSource, LeaseboxSettings settings,
                                                   ObjectProvider<LeaseboxDrain> drain) {
        return new TransactionalOutbox(dataSource, settings.table(), Clock.systemUTC(), drain);
    }

    @Bean
    @ConditionalOnMissingBean
    public OutboxTableReport outboxTableReport(DataSource dataSource, LeaseboxSettings settings) {
        return new OutboxTableReport(dataSource, settings.table());
    }
}
