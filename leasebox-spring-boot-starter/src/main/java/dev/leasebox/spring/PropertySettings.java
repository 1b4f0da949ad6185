package dev.leasebox.spring;

import dev.leasebox.LeaseboxSettings;
import dev.leasebox.spring.LeaseboxProperties.Backend;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Hands the {@code leasebox.*} properties to {@link LeaseboxSettings} as text, spelled as the properties are named,
 * so that every message names the property to fix. The settings read and check them; nothing is translated here.
 */
final class PropertySettings {

    /** The settings keys as properties: {@code leasebox.KEY}, the backoff and the addresses in their groups. */
    static final LeaseboxSettings.Spelling SPELLING = new LeaseboxSettings.Spelling() {
        private final Map<String, String> grouped = Map.of("backoff-initial", "backoff.initial", "backoff-max", "backoff.max",
                "backoff-multiplier", "backoff.multiplier", "backoff-jitter", "backoff.jitter", "redis", "redis.uri",
                "zookeeper", "zookeeper.connect", "hazelcast", "hazelcast.members", "backend-option", "backend-options");

        @Override
        public String key(String key) {
            return "leasebox." + grouped.getOrDefault(key, key);
        }

        @Override
        public String setting(String key, String value) {
            return key(key) + "=" + value;
        }

        @Override
        public String backendOption(String name) {
            return "leasebox.backend-options." + name;
        }

        @Override
        public String otherLeaseSource() {
            return ", or a LeaseManager bean";
        }
    };

    private PropertySettings() {
    }

    /**
     * The settings of {@code p}. A LeaseManager bean of the application replaces a backend opened by name (the
     * settings then name no backend) unless {@code leasebox.backend=database} is set; an OutboxProvider bean
     * replaces {@code leasebox.provider}.
     *
     * @throws LeaseboxConfigurationException naming the property to fix
     */
    static LeaseboxSettings from(LeaseboxProperties p, boolean leaseManagerBean, boolean providerBean) {
        if (!providerBean && (p.getProvider() == null || p.getProvider().isBlank())) {
            throw new LeaseboxConfigurationException("leasebox needs a provider: define an OutboxProvider bean or set "
                    + "leasebox.provider (log | noop | http:URL | jdbc-inbox:JDBC_URL | NAME:TARGET of a provider jar, e.g."
                    + " kafka:BOOTSTRAP/TOPIC with leasebox-kafka)");
        }
        try {
            LeaseboxSettings.Builder s = LeaseboxSettings.builder(SPELLING)
                    .set("table", p.getTable()).set("namespace", p.getNamespace()).set("owner", p.getOwner())
                    .set("provider", providerBean ? null : p.getProvider()).set("batch", text(p.getBatch()))
                    .set("concurrency", text(p.getConcurrency())).set("lease-ttl", text(p.getLeaseTtl()))
                    .set("max-attempts", text(p.getMaxAttempts())).set("when-attempts-exhausted", text(p.getWhenAttemptsExhausted()))
                    .set("backoff-initial", text(p.getBackoff().getInitial())).set("backoff-max", text(p.getBackoff().getMax()))
                    .set("backoff-multiplier", text(p.getBackoff().getMultiplier()))
                    .set("backoff-jitter", text(p.getBackoff().getJitter()))
                    .set("shutdown-timeout", text(p.getShutdownTimeout())).set("granularity", text(p.getGranularity()))
                    .set("claim-mode", text(p.getClaimMode())).set("ordered", text(p.isOrdered()))
                    .set("release-after-completion", text(p.getReleaseAfterCompletion()))
                    .set("release-in-background", text(p.isReleaseInBackground()))
                    .set("candidate-over-ask", text(p.getCandidateOverAsk())).set("candidate-spread", text(p.getCandidateSpread()))
                    .set("wake-ups", text(p.isWakeUps())).set("backend", backend(p.getBackend(), leaseManagerBean))
                    .set("redis", p.getRedis().getUri()).set("zookeeper", p.getZookeeper().getConnect())
                    .set("hazelcast", p.getHazelcast().getMembers());
            p.getBackendOptions().forEach(s::backendOption);
            return s.build();
        } catch (IllegalArgumentException e) {
            throw new LeaseboxConfigurationException(e.getMessage()); // the message is the whole story: no stack to follow
        }
    }

    /** The backend to name in the settings; null when the application's LeaseManager bean is used. */
    private static String backend(Backend backend, boolean leaseManagerBean) {
        if (backend == null) {
            return leaseManagerBean ? null : LeaseboxSettings.DATABASE;
        }
        if (backend != Backend.DATABASE && leaseManagerBean) {
            return null; // the application's manager wins over opening one by name
        }
        return text(backend);
    }

    private static String text(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
        if (value instanceof Duration d) {
            return d.toString();
        }
        return String.valueOf(value);
    }
}
