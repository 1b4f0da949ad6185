package dev.leasebox.spring;

import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderFactory;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/** {@code leasebox.provider}: NAME[:TARGET] of a {@link ProviderFactory} on the class path. */
record ProviderSpecs(String spec, ProviderFactory factory, String target) {

    static ProviderSpecs parse(String spec) {
        String trimmed = spec.trim();
        int colon = trimmed.indexOf(':');
        String name = colon < 0 ? trimmed : trimmed.substring(0, colon);
        String target = colon < 0 ? "" : trimmed.substring(colon + 1);
        Map<String, ProviderFactory> factories = factories();
        ProviderFactory factory = factories.get(name);
        if (factory == null) {
            throw new LeaseboxConfigurationException("leasebox.provider=" + spec + " names no provider on the class path: use "
                    + formats(factories) + ", or define an OutboxProvider bean");
        }
        boolean needsTarget = !factory.targetFormat().isEmpty();
        if (needsTarget && target.isBlank()) {
            throw new LeaseboxConfigurationException("leasebox.provider=" + spec + " needs a target: " + name + ":"
                    + factory.targetFormat());
        }
        if (!needsTarget && !target.isEmpty()) {
            throw new LeaseboxConfigurationException("leasebox.provider=" + spec + ": provider '" + name
                    + "' takes no target");
        }
        try {
            factory.check(target);
        } catch (IllegalArgumentException e) {
            throw new LeaseboxConfigurationException("leasebox.provider=" + spec + ": " + e.getMessage(), e);
        }
        return new ProviderSpecs(spec, factory, target);
    }

    /** Opens the provider; a failure names the property. */
    OutboxProvider open(Clock clock, Function<String, DataSource> dataSources) {
        try {
            return factory.open(target, new ProviderFactory.Context(clock, dataSources));
        } catch (RuntimeException e) {
            throw new LeaseboxConfigurationException("leasebox.provider=" + spec + " cannot be opened: " + e.getMessage(), e);
        }
    }

    static Map<String, ProviderFactory> factories() {
        Map<String, ProviderFactory> byName = new TreeMap<>();
        for (ProviderFactory factory : ServiceLoader.load(ProviderFactory.class, ProviderSpecs.class.getClassLoader())) {
            byName.putIfAbsent(factory.name(), factory);
        }
        return byName;
    }

    private static String formats(Map<String, ProviderFactory> factories) {
        return factories.values().stream()
                .map(f -> f.targetFormat().isEmpty() ? f.name() : f.name() + ":" + f.targetFormat())
                .collect(Collectors.joining(" | "));
    }
}
