package dev.leasebox.spring;

import dev.leasebox.console.Console;
import dev.leasebox.console.ConsoleSampler;
import dev.leasebox.metrics.DrainMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/**
 * The operator's page ({@link Console}) at {@code leasebox.console.path} (default {@code /leasebox}) of a
 * servlet application, on the drain's table, when {@code dev.leasebox:leasebox-console} is on the class
 * path; {@code leasebox.console.enabled=false} leaves it out. The page can redrive dead letters and has
 * no login of its own: put the path behind the application's security. Its POSTs carry their own form
 * token and must be same-origin; an application that enforces Spring Security's CSRF token should
 * exempt the path from that check.
 */
@AutoConfiguration(after = LeaseboxAutoConfiguration.class)
@ConditionalOnClass({Console.class, jakarta.servlet.http.HttpServlet.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "leasebox.console", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(OutboxTableReport.class)
@EnableConfigurationProperties(LeaseboxConsoleProperties.class)
public class LeaseboxConsoleAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ConsoleSampler leaseboxConsoleSampler(DataSource dataSource, OutboxTableReport report,
                                                 LeaseboxConsoleProperties properties) {
        return ConsoleSampler.create(dataSource, report.table(), properties.getSampleEvery(), properties.getKeep());
    }

    /**
     * The console shows the claims this application's drain took over, as its {@link DrainMetrics}
     * counts them where they happen (decision 0040); without Micrometer the card names the meter instead.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    static class TakeoverCount {
        TakeoverCount(ConsoleSampler sampler, ObjectProvider<DrainMetrics> metrics) {
            metrics.ifAvailable(drainMetrics -> sampler.takeoversFrom(drainMetrics::takenOverTotal));
        }
    }

    /** Starts the sampling once the context has started: the application may create its tables while it refreshes. */
    @Bean
    public SmartLifecycle leaseboxConsoleSampling(ConsoleSampler sampler) {
        return new SmartLifecycle() {
            private volatile boolean running;

            @Override
            public void start() {
                sampler.startSampling();
                running = true;
            }

            @Override
            public void stop() {
                // sampling ends when the sampler bean is destroyed, right after
                running = false;
            }

            @Override
            public boolean isRunning() {
                return running;
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean(name = "leaseboxConsoleServlet")
    public ServletRegistrationBean<?> leaseboxConsoleServlet(DataSource dataSource, ConsoleSampler sampler,
                                                             LeaseboxConsoleProperties properties) {
        String path = properties.getPath().replaceAll("/+$", "");
        if (!path.startsWith("/") || path.length() < 2 || path.contains("*")) {
            throw new LeaseboxConfigurationException("leasebox.console.path=" + properties.getPath()
                    + " is not a path to mount the console on: write e.g. /leasebox");
        }
        ServletRegistrationBean<ConsoleServlet> registration =
                new ServletRegistrationBean<>(new ConsoleServlet(new Console(dataSource, sampler)), path + "/*");
        registration.setName("leaseboxConsole");
        return registration;
    }
}
