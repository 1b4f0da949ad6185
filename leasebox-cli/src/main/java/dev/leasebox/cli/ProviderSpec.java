package dev.leasebox.cli;

import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderFactory;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A provider named on the command line, {@code NAME[:TARGET]}: {@code log}, {@code noop},
 * {@code jdbc-inbox:JDBC_URL}, {@code http:URL}, {@code rabbitmq:amqp://…/EXCHANGE}, {@code kafka:BOOTSTRAP/TOPIC},
 * or the name of any {@link ProviderFactory} a jar on the class path registers.
 *
 * @param kind   the provider's name
 * @param target what follows the first colon (empty for {@code log} and {@code noop})
 */
public record ProviderSpec(String kind, String target) {

    /** The built-in formats, for help texts. */
    public static final String FORMATS = "log | noop | jdbc-inbox:JDBC_URL | http:URL | rabbitmq:amqp://USER:PASS@HOST:PORT[/VHOST]/EXCHANGE"
            + " | kafka:BOOTSTRAP/TOPIC | NAME:TARGET of a provider jar on the class path";

    public ProviderSpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
    }

    /**
     * Parses a spec against the providers on the class path and checks the target's form; fails with one line
     * naming {@code --provider} and the expected form (or, for an unknown name, every provider there is).
     */
    public static ProviderSpec parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String trimmed = spec.trim();
        int colon = trimmed.indexOf(':');
        String kind = colon < 0 ? trimmed : trimmed.substring(0, colon);
        String target = colon < 0 ? "" : trimmed.substring(colon + 1);
        ProviderFactory factory = factories().get(kind);
        if (factory == null) {
            throw new IllegalArgumentException("--provider: unknown provider '" + spec + "': use " + available());
        }
        boolean needsTarget = !factory.targetFormat().isEmpty();
        if (needsTarget && target.isBlank()) {
            throw new IllegalArgumentException("--provider: provider '" + kind + "' needs a target: " + kind + ":" + factory.targetFormat());
        }
        if (!needsTarget && !target.isEmpty()) {
            throw new IllegalArgumentException("--provider: provider '" + kind + "' takes no target, was given '" + target + "'");
        }
        try {
            factory.check(target);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--provider " + spec + ": " + e.getMessage(), e);
        }
        return new ProviderSpec(kind, target);
    }

    /**
     * Builds the provider. {@code dataSources} opens a pool for a JDBC URL (the host's own pooling and
     * error messages). Fails at once, with the address, when the target cannot be reached.
     */
    public OutboxProvider open(Clock clock, Function<String, DataSource> dataSources) {
        ProviderFactory factory = factories().get(kind);
        if (factory == null) {
            throw new IllegalArgumentException("unknown provider '" + kind + "': use " + available());
        }
        try {
            return factory.open(target, new ProviderFactory.Context(clock, dataSources));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(cannotOpen(factory, e), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(cannotOpen(factory, e), e);
        }
    }

    /** Names the flag and the form, not the target: a target may hold a password. */
    private static String cannotOpen(ProviderFactory factory, RuntimeException e) {
        return "--provider " + factory.name() + ":" + factory.targetFormat() + " cannot be opened: " + e.getMessage();
    }

    /** Every provider on the class path by name; the first registration of a name wins. */
    static Map<String, ProviderFactory> factories() {
        Map<String, ProviderFactory> byName = new TreeMap<>();
        for (ProviderFactory factory : ServiceLoader.load(ProviderFactory.class)) {
            byName.putIfAbsent(factory.name(), factory);
        }
        return byName;
    }

    private static String available() {
        return factories().values().stream()
                .map(f -> f.targetFormat().isEmpty() ? f.name() : f.name() + ":" + f.targetFormat())
                .collect(Collectors.joining(" | "));
    }
}
