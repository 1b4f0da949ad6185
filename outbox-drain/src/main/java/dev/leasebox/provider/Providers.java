package dev.leasebox.provider;


import javax.sql.DataSource;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;

/**
 * The built-in providers from Java: what {@code --provider log}, {@code noop}, {@code http:URL} and
 * {@code jdbc-inbox:JDBC_URL} open in the CLI and the starter. Kafka and RabbitMQ have theirs in their
 * modules ({@code KafkaProvider.open(...)}, {@code new RabbitMqProvider(address, confirmTimeout)}).
 */
public final class Providers {

    /** The request timeout of {@link #http(URI)}, as the CLI's {@code http:URL} uses it. */
    public static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

    private Providers() {
    }

    /** Prints each entry on standard output and delivers it. */
    public static OutboxProvider log() {
        return new LogProvider(System.out);
    }

    /** Delivers every entry without sending it anywhere: trials and benchmarks. */
    public static OutboxProvider noop() {
        return envelope -> ProviderOutcome.delivered();
    }

    /**
     * POSTs each entry to {@code target} with its idempotency key and fence as headers: 2xx is
     * delivered; 429 and 503 are deferred until {@code Retry-After}; other 5xx, timeouts and I/O errors
     * are retried; other statuses are permanent (see {@link HttpProvider}).
     */
    public static OutboxProvider http(URI target) {
        return http(target, HTTP_TIMEOUT);
    }

    /** As {@link #http(URI)}, with another request timeout. */
    public static OutboxProvider http(URI target, Duration requestTimeout) {
        return new HttpProvider(target, requestTimeout, Clock.systemUTC());
    }

    /** Inserts each entry into the inbox table of {@code dataSource}, once per idempotency key. */
    public static OutboxProvider jdbcInbox(DataSource dataSource) {
        return new JdbcInboxProvider(dataSource);
    }
}
