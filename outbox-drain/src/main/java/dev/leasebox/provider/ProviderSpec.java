package dev.leasebox.provider;

import dev.leasebox.lease.spi.Redacted;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * A provider named in text, {@code NAME[:TARGET]}: {@code log}, {@code noop}, {@code jdbc-inbox:JDBC_URL},
 * {@code http:URL}, {@code rabbitmq:amqp://…/EXCHANGE}, {@code kafka:BOOTSTRAP/TOPIC}, or the name of any
 * {@link ProviderFactory} a jar on the class path registers. Every message names the setting as the user
 * wrote it ({@code --provider}, {@code leasebox.provider}); a provider that cannot be opened is named by its
 * form, not its target, which may hold a password.
 */
public final class ProviderSpec {

    /** The built-in formats, for help texts. */
    public static final String FORMATS = "log | noop | jdbc-inbox:JDBC_URL | http:URL | rabbitmq:amqp://USER:PASS@HOST:PORT[/VHOST]/EXCHANGE"
            + " | kafka:BOOTSTRAP/TOPIC | NAME:TARGET of a provider jar on the class path";

    private final String kind;
    private final String target;
    private final UnaryOperator<String> setting;

    private ProviderSpec(String kind, String target, UnaryOperator<String> setting) {
        this.kind = kind;
        this.target = target;
        this.setting = setting;
    }

    /**
     * Parses {@code spec} against the providers on the class path and checks the target's form; fails with
     * one line naming the setting as the user writes it and the expected form, or, for an unknown name, every
     * provider there is.
     *
     * @param setting the setting with a value as the user writes it: {@code v -> "--provider " + v}
     */
    public static ProviderSpec parse(String spec, UnaryOperator<String> setting) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(setting, "setting");
        String trimmed = spec.trim();
        int colon = trimmed.indexOf(':');
        String kind = colon < 0 ? trimmed : trimmed.substring(0, colon);
        String target = colon < 0 ? "" : trimmed.substring(colon + 1);
        ProviderFactory factory = factories().get(kind);
        if (factory == null) {
            throw new IllegalArgumentException(setting.apply(Redacted.credentials(spec)) + " names no provider on the class path: use " + available());
        }
        boolean needsTarget = !factory.targetFormat().isEmpty();
        if (needsTarget && target.isBlank()) {
            throw new IllegalArgumentException(setting.apply(Redacted.credentials(spec)) + " needs a target: " + kind + ":" + factory.targetFormat());
        }
        if (!needsTarget && !target.isEmpty()) {
            throw new IllegalArgumentException(setting.apply(Redacted.credentials(spec)) + ": provider '" + kind + "' takes no target");
        }
        try {
            factory.check(target);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting.apply(Redacted.credentials(spec)) + ": " + e.getMessage(), e);
        }
        return new ProviderSpec(kind, target, setting);
    }

    /** The provider's name. */
    public String kind() {
        return kind;
    }

    /** What follows the first colon (empty for {@code log} and {@code noop}). */
    public String target() {
        return target;
    }

    /**
     * Builds the provider. {@code dataSources} opens a pool for a JDBC URL (the host's own pooling). Fails at
     * once, naming the setting and the form, when the target cannot be reached.
     */
    public OutboxProvider open(Clock clock, Function<String, DataSource> dataSources) {
        ProviderFactory factory = factories().get(kind);
        if (factory == null) {
            throw new IllegalArgumentException(setting.apply(kind) + " names no provider on the class path: use " + available());
        }
        try {
            return factory.open(target, new ProviderFactory.Context(clock, dataSources));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(cannotOpen(factory, e), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(cannotOpen(factory, e), e);
        }
    }

    private String cannotOpen(ProviderFactory factory, RuntimeException e) {
        return setting.apply(factory.name() + ":" + factory.targetFormat()) + " cannot be opened: " + e.getMessage();
    }

    /** Every provider on the class path by name; the first registration of a name wins. */
    public static Map<String, ProviderFactory> factories() {
        Map<String, ProviderFactory> byName = new TreeMap<>();
        for (ProviderFactory factory : ServiceLoader.load(ProviderFactory.class, ProviderSpec.class.getClassLoader())) {
            byName.putIfAbsent(factory.name(), factory);
        }
        return byName;
    }

    private static String available() {
        return factories().values().stream()
                .map(f -> f.targetFormat().isEmpty() ? f.name() : f.name() + ":" + f.targetFormat())
                .collect(Collectors.joining(" | "));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProviderSpec other && kind.equals(other.kind) && target.equals(other.target);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, target);
    }

    /** The provider's name: the target is left out, it may hold a password. */
    @Override
    public String toString() {
        return kind;
    }
}
