package dev.leasebox.provider;


import java.net.URI;
import java.time.Duration;

/** The providers that need no dependency beyond the JDK, registered as {@link ProviderFactory}s. */
public final class BuiltInProviders {

    private BuiltInProviders() {
    }

    /** {@code log}: prints each entry on standard output. */
    public static final class Log implements ProviderFactory {
        @Override
        public String name() {
            return "log";
        }

        @Override
        public String targetFormat() {
            return "";
        }

        @Override
        public OutboxProvider open(String target, Context context) {
            return new LogProvider(System.out);
        }
    }

    /** {@code noop}: delivers every entry without sending it anywhere (benchmarks, trials). */
    public static final class Noop implements ProviderFactory {
        @Override
        public String name() {
            return "noop";
        }

        @Override
        public String targetFormat() {
            return "";
        }

        @Override
        public OutboxProvider open(String target, Context context) {
            return envelope -> ProviderOutcome.delivered();
        }
    }

    /** {@code http:URL}: POSTs each entry, with its idempotency key and fence as headers. */
    public static final class Http implements ProviderFactory {
        @Override
        public String name() {
            return "http";
        }

        @Override
        public String targetFormat() {
            return "URL";
        }

        @Override
        public OutboxProvider open(String target, Context context) {
            return new HttpProvider(URI.create(target), Duration.ofSeconds(10), context.clock());
        }
    }

    /** {@code jdbc-inbox:JDBC_URL}: inserts each entry into an inbox table, once per idempotency key. */
    public static final class JdbcInbox implements ProviderFactory {
        @Override
        public String name() {
            return "jdbc-inbox";
        }

        @Override
        public String targetFormat() {
            return "JDBC_URL";
        }

        @Override
        public OutboxProvider open(String target, Context context) {
            return new JdbcInboxProvider(context.dataSources().apply(target));
        }
    }
}
