package dev.leasebox.cli;

import dev.leasebox.provider.HttpProvider;
import dev.leasebox.provider.JdbcInboxProvider;
import dev.leasebox.provider.LogProvider;
import dev.leasebox.rabbitmq.RabbitMqProvider;

import dev.leasebox.drain.OutboxProvider;
import dev.leasebox.drain.ProviderOutcome;

import javax.sql.DataSource;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * A provider named on the command line: {@code log}, {@code noop}, {@code jdbc-inbox:JDBC_URL},
 * {@code http:URL} or {@code rabbitmq:AMQP_URI/EXCHANGE}.
 *
 * @param kind   the provider's name
 * @param target what follows the first colon (empty for {@code log} and {@code noop})
 */
public record ProviderSpec(String kind, String target) {

    /** What {@link #parse} accepts, for help texts and errors. */
    public static final String FORMATS = "log | noop | jdbc-inbox:JDBC_URL | http:URL | rabbitmq:amqp://USER:PASS@HOST:PORT[/VHOST]/EXCHANGE";

    public ProviderSpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
    }

    /** Parses a spec; fails with one line listing the accepted formats. */
    public static ProviderSpec parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String trimmed = spec.trim();
        int colon = trimmed.indexOf(':');
        String kind = colon < 0 ? trimmed : trimmed.substring(0, colon);
        String target = colon < 0 ? "" : trimmed.substring(colon + 1);
        boolean needsTarget = switch (kind) {
            case "log", "noop" -> false;
            case "jdbc-inbox", "http", "rabbitmq" -> true;
            default -> throw new IllegalArgumentException("unknown provider '" + spec + "': use " + FORMATS);
        };
        if (needsTarget && target.isBlank()) {
            throw new IllegalArgumentException("provider '" + kind + "' needs a target: use " + FORMATS);
        }
        if (!needsTarget && !target.isEmpty()) {
            throw new IllegalArgumentException("provider '" + kind + "' takes no target, was given '" + target + "'");
        }
        return new ProviderSpec(kind, target);
    }

    /**
     * Builds the provider. {@code dataSources} opens a pool for a JDBC URL (the host's own pooling and
     * error messages). Fails at once, with the address, when the target cannot be reached.
     */
    public OutboxProvider open(Clock clock, Function<String, DataSource> dataSources) {
        switch (kind) {
            case "log":
                return new LogProvider(System.out);
            case "noop":
                return envelope -> ProviderOutcome.delivered();
            case "jdbc-inbox":
                return new JdbcInboxProvider(dataSources.apply(target));
            case "http":
                return new HttpProvider(URI.create(target), Duration.ofSeconds(10), clock);
            case "rabbitmq":
                return new RabbitMqProvider(target, Duration.ofSeconds(10));
            default:
                throw new IllegalStateException("unreachable: " + kind);
        }
    }
}
